import { MAX_BULK_CONTACTS } from '@tidings/contracts';
import { bulkCreateContacts, type Deps } from '@tidings/core';
import type { Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { csvColumns, csvContact, parseCsv } from '../contacts-csv.ts';
import { canManage, type DashEnv } from '../env.ts';
import { CsrfField } from '../views/layout.tsx';
import { DetailPage } from '../views/page-shell.tsx';
import { render } from '../views/render.tsx';
import { orgOf, pageRoutes, type DashboardPage } from './page.ts';

const BASE = '/contacts';
/** The largest CSV the import takes in one upload (about 100,000 typical rows). */
const MAX_CSV_BYTES = 10 * 1024 * 1024;

type Env = Context<DashEnv>;
type RowReport = { row: number; message: string };
type ImportReport = { rows: number; created: number; updated: number; errors: RowReport[] };
type OnConflict = 'skip' | 'update';
/** The form's choice for a row whose email or phone a contact already has (skip unless it says update). */
const onConflictOf = (value: unknown): OnConflict => (value === 'update' ? 'update' : 'skip');

/**
 * Imports CSV records (after the header) as contacts, {@link MAX_BULK_CONTACTS} per contact.bulkCreate call; rows
 * are numbered from `firstRow` (the first record after the header is row 1), so a report names rows of the file.
 */
async function importRecords(deps: Deps, orgId: string, header: string[], records: string[][], firstRow: number, onConflict: OnConflict): Promise<ImportReport | string> {
  const columns = csvColumns(header);
  if (typeof columns === 'string') return columns;
  const report: ImportReport = { rows: records.length, created: 0, updated: 0, errors: [] };
  for (let start = 0; start < records.length; start += MAX_BULK_CONTACTS) {
    const rows: { row: number; contact: Record<string, unknown> }[] = [];
    records.slice(start, start + MAX_BULK_CONTACTS).forEach((cells, i) => {
      const row = firstRow + start + i;
      if (cells.length > columns.length) report.errors.push({ row, message: `${cells.length} values, but the first line names ${columns.length} columns` });
      else rows.push({ row, contact: csvContact(columns, cells) });
    });
    if (rows.length === 0) continue;
    const result = await bulkCreateContacts(
      deps,
      orgId,
      rows.map((r) => r.contact),
      onConflict,
    );
    report.created += result.created.length;
    report.updated += result.updated.length;
    // bulkCreate names rows of its batch: an earlier row of the batch by index, which is a row of the file here
    const fileRow = (index: number) => rows[index]!.row;
    for (const error of result.errors) {
      report.errors.push({ row: fileRow(error.index), message: error.message.replace(/row (\d+) of this batch/, (_, index) => `row ${fileRow(Number(index))}`) });
    }
  }
  report.errors.sort((a, b) => a.row - b.row);
  return report;
}

function ImportReportView({ report }: { report: ImportReport }) {
  return (
    <>
      <p id="import-status" role="status">
        {report.created + report.updated} of {report.rows} contacts imported{report.updated > 0 && ` (${report.updated} updated)`}
        {report.errors.length > 0 && `; ${report.errors.length} rows were not (listed below)`}.
      </p>
      <ImportErrors errors={report.errors} />
    </>
  );
}

/** The rows that were not imported; the script fills the same (hidden) table as chunks come back. */
function ImportErrors({ errors }: { errors: RowReport[] }) {
  return (
    <div class="table-wrap">
      <table class="striped" id="import-errors" hidden={errors.length === 0}>
        <thead>
          <tr>
            <th>Row</th>
            <th>Why it was not imported</th>
          </tr>
        </thead>
        <tbody>
          {errors.map((error) => (
            <tr>
              <td>{error.row}</td>
              <td>{error.message}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function importPage(c: Env, options: { report?: ImportReport; error?: string; status?: 200 | 400 } = {}) {
  return render(
    c,
    <DetailPage
      c={c}
      title="Import contacts"
      back={{ href: BASE, label: 'Contacts' }}
      subtitle={
        <>
          A CSV file whose first line names the columns: <code>email</code>, <code>phone</code>, <code>firstName</code>, <code>lastName</code>, <code>emailSubscribed</code>,{' '}
          <code>smsSubscribed</code>; any other column is an attribute. Rows that cannot be imported (a bad address, a duplicate) are listed with the reason; the others are
          imported.
        </>
      }
      showsNotice={false}
    >
      <form method="post" action={`${BASE}/import`} enctype="multipart/form-data" class="card" id="contact-import">
        <CsrfField c={c} />
        {options.error && (
          <p class="form-error" role="alert">
            {options.error}
          </p>
        )}
        <div class="create-row">
          <label class="grow">
            CSV file
            <input type="file" name="file" accept=".csv,text/csv" required />
          </label>
          <label>
            A contact with the same email or phone
            <select name="onConflict">
              <option value="skip">is left as it is (the row is listed)</option>
              <option value="update">is updated from the row</option>
            </select>
          </label>
          <button type="submit">Import</button>
        </div>
        <progress id="import-progress" value="0" hidden></progress>
      </form>
      {options.report ? (
        <ImportReportView report={options.report} />
      ) : (
        <>
          <p id="import-status" role="status"></p>
          <ImportErrors errors={[]} />
        </>
      )}
      <script src="/assets/contacts-import.js" defer></script>
    </DetailPage>,
    options.status ?? 200,
  );
}

const routes = pageRoutes({ managersPost: true });

routes.get('/', (c) => (canManage(c.var.signedIn) ? importPage(c) : c.redirect(BASE, 303)));

// Without the script: the whole file in one upload, imported in chunks before the report is shown.
// (The CSRF check has parsed the form already, so the size is checked on the file rather than by a body limit.)
routes.post('/', async (c) => {
  const form = await c.req.parseBody();
  const file = form.file;
  if (!(file instanceof File) || file.size === 0) return importPage(c, { error: 'Choose a CSV file.', status: 400 });
  if (file.size > MAX_CSV_BYTES) return importPage(c, { error: 'The file is larger than 10 MB: split it.', status: 400 });
  const [header = [], ...records] = parseCsv(await file.text());
  const report = await importRecords(c.var.deps, orgOf(c), header, records, 1, onConflictOf(form.onConflict));
  if (typeof report === 'string') return importPage(c, { error: report, status: 400 });
  return importPage(c, { report });
});

// With the script (contacts-import.js): one chunk of the file, its header first; the rows it did not import, as JSON.
routes.post('/chunk', bodyLimit({ maxSize: MAX_CSV_BYTES, onError: (c) => c.json({ message: 'The chunk is too large.' }, 413) }), async (c) => {
  const firstRow = Number(c.req.query('firstRow') ?? '1');
  const [header = [], ...records] = parseCsv(await c.req.text());
  if (!Number.isSafeInteger(firstRow) || firstRow < 1) return c.json({ message: 'firstRow must be a row number.' }, 400);
  if (records.length > MAX_BULK_CONTACTS) return c.json({ message: `Send at most ${MAX_BULK_CONTACTS} rows at a time.` }, 400);
  const report = await importRecords(c.var.deps, orgOf(c), header, records, firstRow, onConflictOf(c.req.query('onConflict')));
  if (typeof report === 'string') return c.json({ message: report }, 400);
  return c.json({ created: report.created, updated: report.updated, errors: report.errors });
});

/**
 * Contacts > Import a CSV, through contact.bulkCreate: without a script, one upload imported before the report; with
 * contacts-import.js, chunks with a progress bar. Mounted before the contacts pages so `/contacts/:id` does not take it.
 */
export const contactsImportPage: DashboardPage = { path: `${BASE}/import`, routes };
