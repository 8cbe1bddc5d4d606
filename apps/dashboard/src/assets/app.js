// The dashboard's only script: copy buttons and the organization switcher. Pages work without it.
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
