// The segment builder, with a script: the count follows each change of a condition, without pressing "Count
// matches". It posts the form as that button does and takes the count line from the page that comes back.
const form = document.querySelector('form#segment-builder');
let timer;
let latest = 0;

async function refreshCount() {
  const asked = ++latest;
  const body = new FormData(form);
  body.set('do', 'count');
  const response = await fetch(form.action, { method: 'POST', body });
  const page = new DOMParser().parseFromString(await response.text(), 'text/html');
  const count = page.querySelector('#segment-count');
  if (count && asked === latest) document.querySelector('#segment-count').textContent = count.textContent;
}

const later = () => {
  clearTimeout(timer);
  timer = setTimeout(() => refreshCount().catch(() => {}), 300);
};
form?.addEventListener('change', later);
form?.addEventListener('input', later);
