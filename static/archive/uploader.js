/* The deposit form's uploader: files chosen or dropped are sent at once, each with its
   progress bar, by tus (tus-js-client, resumable: a dropped connection resumes from the last
   byte the server holds, and so does the same file chosen again after a reload) to
   /api/uploads/; each one done waits in the form as a ticked box (the form's `pending`) and is
   offered as the main file and as a restricted file (a box of `restricted_files`). The form is sent without the bytes. Without this script the form
   still works: its files then go with it, and a validation error keeps them as pending uploads.
   Words come from the page (the widget's data-text-*), in the librarian's language. */
"use strict";
// The admin loads its forms' scripts in the page's head: start once the form is there.
const ibiUploader = () => {
  const box = document.querySelector(".ibi-uploader");
  const input = document.getElementById("id_upload");
  if (box && input && window.tus && window.tus.isSupported) {
    const form = input.form;
    const list = box.querySelector(".ibi-uploads");
    const status = box.querySelector(".ibi-upload-status");
    const target = document.getElementById("id_target_file");
    const restricted = document.getElementById("id_restricted_files");
    const text = (key) => box.dataset[`text${key[0].toUpperCase()}${key.slice(1)}`];
    const csrf = form.querySelector("input[name=csrfmiddlewaretoken]").value;
    const percent = new Intl.NumberFormat(document.documentElement.lang || undefined,
                                          {style: "percent"});
    const chunkSize = Number(box.dataset.chunkSize) || Infinity;
    const running = new Set();
    let made = 0;

    // The restricted files' boxes: the item's own files, then one for each file waiting, as
    // the librarian left it ticked or not.
    const offerRestricted = () => {
      if (!restricted) return;
      const ticked = new Set([...restricted.querySelectorAll("input:checked")]
        .map((box) => box.value));
      restricted.querySelectorAll("[data-pending]").forEach((row) => row.remove());
      const taken = new Set([...restricted.querySelectorAll("input")].map((box) => box.value));
      for (const tick of list.querySelectorAll("input[name=pending]")) {
        const name = tick.dataset.name;
        if (taken.has(name)) continue;
        const row = document.createElement("div");
        row.dataset.pending = "1";
        const label = document.createElement("label");
        const box = document.createElement("input");
        Object.assign(box, {type: "checkbox", name: "restricted_files", value: name,
                            checked: ticked.has(name), id: `id_restricted_new_${++made}`});
        label.htmlFor = box.id;
        label.append(box, ` ${name}`);
        row.append(label);
        restricted.append(row);
        taken.add(name);
      }
    };

    // The main file's choices: the item's own files, then those waiting, in the list's order.
    const offerAll = () => {
      offerRestricted();
      if (!target) return;
      const chosen = target.value;
      [...target.options].filter((o) => o.dataset.pending).forEach((o) => o.remove());
      const taken = new Set([...target.options].map((o) => o.value));
      for (const tick of list.querySelectorAll("input[name=pending]")) {
        if (taken.has(tick.dataset.name)) continue;
        const option = new Option(tick.dataset.name, tick.dataset.name);
        option.dataset.pending = "1";
        target.add(option);
        taken.add(tick.dataset.name);
      }
      target.value = taken.has(chosen) ? chosen : "";
    };
    const terminate = (url) => fetch(url, {
      method: "DELETE", credentials: "same-origin",
      headers: {"Tus-Resumable": "1.0.0", "X-CSRFToken": csrf}});

    // A file waiting in the form: its box ticked, its remove button live.
    const waiting = (row, id, url, name) => {
      const tick = document.createElement("input");
      Object.assign(tick, {type: "checkbox", name: "pending", value: id, checked: true,
                           id: `id_pending_new_${++made}`});
      tick.dataset.name = name;
      const label = row.querySelector(".ibi-name");
      const named = document.createElement("label");
      named.htmlFor = tick.id;
      named.textContent = name;
      label.replaceWith(named);
      row.prepend(tick, " ");
      row.dataset.url = url;
      offerAll();
    };

    const remove = (row) => {
      const upload = row.ibiUpload;
      if (upload && running.has(upload)) {
        running.delete(upload);
        upload.abort(true);  // and terminated on the server
      } else if (row.dataset.url) {
        terminate(row.dataset.url);
      }
      row.remove();
      offerAll();
      settled();
    };

    const start = (file) => {
      const row = document.createElement("li");
      row.className = "ibi-upload";
      const name = document.createElement("span");
      name.className = "ibi-name";
      name.textContent = file.name;
      const bar = document.createElement("progress");
      Object.assign(bar, {max: 100, value: 0});
      bar.setAttribute("aria-label", file.name);
      const state = document.createElement("span");
      state.className = "ibi-state";
      state.textContent = text("uploading");
      const button = document.createElement("button");
      Object.assign(button, {type: "button", className: "button ibi-remove",
                             textContent: text("remove")});
      row.append(name, " ", bar, " ", state, " ", button);
      list.append(row);

      const upload = new tus.Upload(file, {
        endpoint: box.dataset.endpoint,
        chunkSize,
        retryDelays: [0, 1000, 3000, 5000, 10000],
        metadata: {filename: file.name, filetype: file.type},
        headers: {"X-CSRFToken": csrf},
        removeFingerprintOnSuccess: true,
        onProgress: (sent, total) => {
          bar.value = total ? (100 * sent) / total : 100;
          state.textContent = `${text("uploading")} ${percent.format(total ? sent / total : 1)}`;
        },
        onSuccess: () => {
          running.delete(upload);
          bar.value = 100;
          state.textContent = text("uploaded");
          waiting(row, upload.url.split("/").pop(), upload.url, file.name);
          if (!running.size) status.textContent = "";
          settled();
        },
        onError: (error) => {
          running.delete(upload);
          row.classList.add("ibi-failed");
          state.textContent = `${text("failed")} ${error.message}`;
          settled();
        },
      });
      row.ibiUpload = upload;
      running.add(upload);
      // The same file chosen again (after a reload, a lost connection) resumes.
      upload.findPreviousUploads().then((previous) => {
        if (previous.length) upload.resumeFromPreviousUpload(previous[0]);
        upload.start();
      });
    };

    const take = (files) => {
      [...files].forEach(start);
      input.value = "";  // the bytes go by tus, not with the form
      input.required = false;
    };

    // The drop zone: the file chooser inside it, and anything dropped on it.
    const zone = document.createElement("div");
    zone.className = "ibi-dropzone";
    const hint = document.createElement("p");
    hint.textContent = text("drop");
    input.before(zone);
    zone.append(hint, input);
    zone.addEventListener("dragover", (event) => {
      event.preventDefault();
      zone.classList.add("ibi-dragging");
    });
    zone.addEventListener("dragleave", () => zone.classList.remove("ibi-dragging"));
    zone.addEventListener("drop", (event) => {
      event.preventDefault();
      zone.classList.remove("ibi-dragging");
      take(event.dataTransfer.files);
    });
    input.addEventListener("change", () => take(input.files));

    // The files the server kept (a form sent back): their remove buttons.
    for (const row of list.querySelectorAll(".ibi-upload")) {
      const tick = row.querySelector("input[name=pending]");
      tick.dataset.name = row.querySelector("label").textContent;
      for (const option of target ? target.options : []) {
        if (option.value === tick.dataset.name) option.dataset.pending = "1";
      }
      for (const box of restricted ? restricted.querySelectorAll("input") : []) {
        if (box.value === tick.dataset.name) box.closest("label").parentElement.dataset.pending = "1";
      }
    }
    list.addEventListener("click", (event) => {
      const button = event.target.closest(".ibi-remove");
      if (button) remove(button.closest(".ibi-upload"));
    });
    list.querySelectorAll(".ibi-remove[hidden]").forEach((b) => { b.hidden = false; });

    // Saved while files are still on their way: sent as soon as the last one is in.
    let waitingSubmit = null;
    const settled = () => {
      if (running.size || !waitingSubmit) return;
      const submitter = waitingSubmit;
      waitingSubmit = null;
      if (!list.querySelector(".ibi-failed")) form.requestSubmit(submitter);
    };
    form.addEventListener("submit", (event) => {
      if (running.size) {
        event.preventDefault();
        waitingSubmit = event.submitter || form.querySelector("input[name=_save]");
        status.textContent = text("wait");
      }
    });
  }
};
if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", ibiUploader);
} else {
  ibiUploader();
}
