// skillpath studio: search as you type, the editor's live checks, and rows added to the
// structured form. Every page works without this script; it only saves round trips.
"use strict";
(function () {
  const csrf = document.body.dataset.csrf || "";

  // Search as you type: the catalog's own URL with `fragment=1` answers the results part,
  // which replaces the current one; the address bar follows, so the view can be shared.
  const search = document.querySelector("[data-live-search]");
  if (search) {
    const results = document.getElementById("results");
    let timer = 0;
    let sent = 0;
    const refresh = () => {
      const query = new URLSearchParams(new FormData(search));
      for (const [key, value] of [...query]) if (value === "") query.delete(key);
      const shown = "/?" + query.toString();
      query.set("fragment", "1");
      const mine = ++sent;
      fetch("/?" + query.toString(), { credentials: "same-origin" })
        .then((response) => response.text())
        .then((html) => {
          if (mine !== sent) return;
          results.innerHTML = html;
          history.replaceState(null, "", shown);
        })
        .catch(() => {});
    };
    search.addEventListener("input", () => {
      clearTimeout(timer);
      timer = setTimeout(refresh, 150);
    });
    search.addEventListener("change", refresh);
  }

  // The editor: line numbers, and diagnostics, findings and preview from the server as you
  // type; a click on a diagnostic puts the caret at its place.
  const editor = document.querySelector("[data-editor]");
  if (editor) {
    const text = editor.querySelector("[data-text]");
    const gutter = editor.querySelector("[data-gutter]");
    const diagnostics = editor.querySelector("[data-diagnostics]");
    const findings = editor.querySelector("[data-findings]");
    const preview = editor.querySelector("[data-preview]");
    let marks = new Map();
    const lines = () => {
      const count = text.value.split("\n").length;
      gutter.textContent = "";
      for (let line = 1; line <= count; line++) {
        const span = document.createElement("span");
        span.textContent = line + "\n";
        const mark = marks.get(line);
        if (mark) span.className = "mark-" + mark;
        gutter.appendChild(span);
      }
      gutter.scrollTop = text.scrollTop;
    };
    const collect = () => {
      marks = new Map();
      for (const item of editor.querySelectorAll("[data-diagnostics] li")) {
        const line = Number(item.dataset.line);
        if (line > 0 && marks.get(line) !== "error") marks.set(line, item.className.replace("sev-", ""));
      }
    };
    const list = (target, items) => {
      target.textContent = "";
      for (const item of items) {
        const li = document.createElement("li");
        li.className = "sev-" + item.severity;
        li.dataset.line = item.line;
        li.dataset.column = item.column;
        if (item.line > 0) {
          const pos = document.createElement("span");
          pos.className = "pos";
          pos.textContent = item.line + ":" + item.column + " ";
          li.appendChild(pos);
        }
        const code = document.createElement("code");
        code.textContent = item.code;
        li.appendChild(code);
        li.appendChild(document.createTextNode(" " + item.message));
        if (item.hint) {
          li.appendChild(document.createElement("br"));
          const hint = document.createElement("small");
          hint.textContent = item.hint;
          li.appendChild(hint);
        }
        li.tabIndex = 0;
        target.appendChild(li);
      }
    };
    let timer = 0;
    let sent = 0;
    const check = () => {
      const mine = ++sent;
      fetch(editor.dataset.check, {
        method: "POST",
        credentials: "same-origin",
        headers: { "content-type": "application/json", "x-csrf-token": csrf },
        body: JSON.stringify({ file: editor.dataset.file, text: text.value }),
      })
        .then((response) => (response.ok ? response.json() : null))
        .then((checked) => {
          if (!checked || mine !== sent) return;
          list(diagnostics, checked.diagnostics);
          list(findings, checked.findings);
          editor.querySelector("[data-diag-count]").textContent = checked.diagnostics.length;
          editor.querySelector("[data-finding-count]").textContent = checked.findings.length;
          const ok = editor.querySelector("[data-diag-ok]");
          if (ok) ok.hidden = checked.diagnostics.length > 0;
          // Sanitised on the server, as the page's own preview is.
          preview.innerHTML = checked.preview;
          collect();
          lines();
        })
        .catch(() => {});
    };
    const jump = (event) => {
      const item = event.target.closest("li[data-line]");
      if (!item || event.type === "keydown" && event.key !== "Enter") return;
      const line = Number(item.dataset.line);
      if (!(line > 0)) return;
      const column = Math.max(1, Number(item.dataset.column));
      const before = text.value.split("\n").slice(0, line - 1).join("\n").length + (line > 1 ? 1 : 0);
      text.focus();
      text.setSelectionRange(before + column - 1, before + column - 1);
    };
    for (const target of [diagnostics, findings]) {
      target.addEventListener("click", jump);
      target.addEventListener("keydown", jump);
      for (const li of target.querySelectorAll("li")) li.tabIndex = 0;
    }
    text.addEventListener("input", () => {
      lines();
      clearTimeout(timer);
      timer = setTimeout(check, 250);
    });
    text.addEventListener("scroll", () => (gutter.scrollTop = text.scrollTop));
    collect();
    lines();
  }

  // The structured form: "add a row" copies a table's last row, emptied.
  for (const fieldset of document.querySelectorAll("[data-rows]")) {
    const button = fieldset.querySelector("[data-add-row]");
    if (!button) continue;
    button.hidden = false;
    button.addEventListener("click", () => {
      const rows = fieldset.querySelectorAll("[data-row]");
      const last = rows[rows.length - 1];
      const copy = last.cloneNode(true);
      for (const field of copy.querySelectorAll("input, textarea")) field.value = "";
      last.after(copy);
      const first = copy.querySelector("input, select, textarea");
      if (first) first.focus();
    });
  }
})();
