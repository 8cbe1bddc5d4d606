// The dashboard's only script: copy buttons, the organization switcher, live previews and progress. Pages work without it.
document.addEventListener('click', async (event) => {
  const button = event.target.closest('[data-copy]');
  if (!button) return;
  const input = document.querySelector(button.dataset.copy);
  if (!input) return;
  try {
    await navigator.clipboard.writeText(input.value);
  } catch {
    input.select(); // no clipboard API (plain http on another host): select it for Ctrl+C
    document.execCommand('copy');
  }
  button.textContent = 'Copied';
  setTimeout(() => (button.textContent = 'Copy'), 2000);
});
document.addEventListener('change', (event) => {
  if (event.target.matches('select[data-autosubmit]')) event.target.form.submit();
});
// with the script, changing the organization or a role is enough; the buttons are for browsers without it
for (const button of document.querySelectorAll('.org-switcher button, .member-role button')) button.hidden = true;
// The template editor: the preview follows what is typed (the Preview button does the same without the script).
const editor = document.querySelector('form[data-live-preview]');
if (editor) {
  let timer;
  let latest = 0;
  const refreshPreview = async () => {
    const ticket = ++latest;
    const res = await fetch(editor.dataset.livePreview, { method: 'POST', body: new URLSearchParams(new FormData(editor)) });
    const next = new DOMParser().parseFromString(await res.text(), 'text/html').getElementById('preview');
    if (ticket === latest && next) document.getElementById('preview').replaceWith(next);
  };
  editor.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(refreshPreview, 300);
  });
}
// A part of the page marked data-refresh (a broadcast on its way) is fetched again every 2 s until it no longer is.
if (document.querySelector('[data-refresh]')) {
  const refresh = async () => {
    const current = document.querySelector('[data-refresh]');
    if (!current) return;
    const res = await fetch(location.href);
    const next = new DOMParser().parseFromString(await res.text(), 'text/html').getElementById(current.id);
    if (next) current.replaceWith(next);
    if (!next || next.hasAttribute('data-refresh')) setTimeout(refresh, 2000);
  };
  setTimeout(refresh, 2000);
}
