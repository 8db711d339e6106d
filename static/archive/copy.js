// Copy buttons: progressive enhancement. Without JavaScript the buttons stay hidden and the
// text stays selectable; with it, a button copies the text of the element named by data-copy.
// What the status then says comes from the page, in its language (data-copied, data-failed).
document.addEventListener("DOMContentLoaded", () => {
  for (const button of document.querySelectorAll("button.copy[data-copy]")) {
    const source = document.getElementById(button.dataset.copy);
    if (!source || !navigator.clipboard) continue;
    const status = button.nextElementSibling;
    button.hidden = false;
    button.addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText(source.textContent.trim());
        if (status) status.textContent = status.dataset.copied || "Copied.";
      } catch {
        if (status) status.textContent = status.dataset.failed || "Could not copy: select the text instead.";
      }
    });
  }
});
