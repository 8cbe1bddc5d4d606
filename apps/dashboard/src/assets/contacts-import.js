// The contacts import page, with a script: the file is read here and sent in chunks of CHUNK rows, so a progress bar
// can follow and each chunk stays far below the server's limits. The server reads every chunk with the same CSV rules
// as the form's upload without this script, and answers which rows it did not import and why.
const CHUNK = 500;
const form = document.querySelector('form#contact-import');

/** The CSV records as text (a quoted field may hold a line break), without blank lines; the header first. */
function records(text) {
  const out = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '"') quoted = !quoted;
    else if (text[i] === '\n' && !quoted) {
      out.push(text.slice(start, i).replace(/\r$/, ''));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out.filter((record) => record.trim() !== '');
}

function addError(table, row, message) {
  const tr = table.tBodies[0].insertRow();
  tr.insertCell().textContent = String(row);
  tr.insertCell().textContent = message;
  table.hidden = false;
}

async function importFile(file) {
  const progress = document.querySelector('#import-progress');
  const status = document.querySelector('#import-status');
  const table = document.querySelector('#import-errors');
  table.tBodies[0].replaceChildren();
  table.hidden = true;
  const [header, ...rows] = records((await file.text()).replace(/^\uFEFF/, ''));
  progress.max = rows.length;
  progress.value = 0;
  progress.hidden = false;
  let created = 0;
  let updated = 0;
  let failed = 0;
  const onConflict = form.elements.onConflict?.value === 'update' ? 'update' : 'skip';
  for (let first = 0; first < rows.length; first += CHUNK) {
    status.textContent = `Importing rows ${first + 1} to ${Math.min(first + CHUNK, rows.length)} of ${rows.length}…`;
    const response = await fetch(`${form.action}/chunk?firstRow=${first + 1}&onConflict=${onConflict}`, {
      method: 'POST',
      headers: { 'content-type': 'text/csv; charset=utf-8', 'x-csrf-token': form.elements._csrf.value },
      body: [header, ...rows.slice(first, first + CHUNK)].join('\n'),
    });
    const result = await response.json().catch(() => ({ message: `The server answered ${response.status}.` }));
    if (!response.ok) {
      status.textContent = `${result.message} ${created} contacts were imported before this.`;
      return;
    }
    created += result.created;
    updated += result.updated ?? 0;
    failed += result.errors.length;
    for (const error of result.errors) addError(table, error.row, error.message);
    progress.value = Math.min(first + CHUNK, rows.length);
  }
  status.textContent = `${created + updated} of ${rows.length} contacts imported${updated ? ` (${updated} updated)` : ''}${failed ? `; ${failed} rows were not (listed below)` : ''}.`;
}

form?.addEventListener('submit', (event) => {
  const file = form.elements.file.files[0];
  if (!file) return;
  event.preventDefault();
  const button = form.querySelector('button[type=submit]');
  button.disabled = true;
  importFile(file)
    .catch((error) => {
      document.querySelector('#import-status').textContent = `The import stopped: ${error.message}`;
    })
    .finally(() => {
      button.disabled = false;
    });
});
