/* Every admin page: names for the controls Django's admin and its select2 pickers leave
   unnamed, so that a screen reader announces each (axe-core: tests/test_admin_accessibility.py).
   Run once the page has loaded, after the admin's own scripts built their widgets. */
"use strict";
{
  let made = 0;
  const labelOf = (control) => {
    const label = control.id && document.querySelector(`label[for="${CSS.escape(control.id)}"]`);
    if (label && !label.id) label.id = `ibi-label-${++made}`;
    return label;
  };

  // A select2 picker ("Previous edition", "Translation of"): its combobox is named by the
  // field's label and the item chosen; the box showing the choice by the label.
  const namePickers = (root) => {
    for (const box of root.querySelectorAll(".select2-selection[role=combobox]")) {
      if (box.dataset.ibiNamed) continue;
      const select = box.closest(".select2-container")?.previousElementSibling;
      const label = select && labelOf(select);
      const shown = box.querySelector(".select2-selection__rendered");
      if (!label) continue;
      box.setAttribute("aria-labelledby", shown?.id ? `${label.id} ${shown.id}` : label.id);
      if (shown) shown.setAttribute("aria-labelledby", label.id);
      box.dataset.ibiNamed = "1";
    }
  };

  window.addEventListener("load", () => {
    namePickers(document);
    // Pickers the admin builds later (its select2 starts on jQuery's ready, and in new rows).
    new MutationObserver(() => namePickers(document))
      .observe(document.body, {childList: true, subtree: true});
    // The filter widgets' search icons carry a name on a plain span: an image, then.
    for (const icon of document.querySelectorAll(".help-tooltip[aria-label]:not([role])")) {
      icon.setAttribute("role", "img");
    }
    // A date and time field's two boxes: each named by the field's label and its own caption.
    for (const input of document.querySelectorAll("p.datetime input:not([aria-label])")) {
      if (labelOf(input)) continue;
      const field = input.closest(".form-row, .fieldBox")?.querySelector("label");
      const caption = input.previousSibling?.textContent?.trim().replace(/:$/, "") || "";
      input.setAttribute("aria-label", [field?.textContent.replace(/:$/, ""), caption]
        .filter(Boolean).join(" — "));
    }
    // The list's search box, named by its button when its label holds an icon alone.
    const search = document.getElementById("searchbar");
    const button = search?.form?.querySelector("input[type=submit]");
    if (search && button && !search.hasAttribute("aria-label")) {
      search.setAttribute("aria-label", button.value);
    }
  });
}
