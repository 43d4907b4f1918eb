import { useState, type FormEvent } from 'react'
import type { BoardLot, InventoryImportResponse } from '../../protocol.ts'
import { dollars } from './availability.ts'

/** What the lots' table asks the page to do (owners and editors); each answers whether it was done. */
export type LotActions = {
  change: (lot: string, change: { price?: number; status?: string }) => Promise<boolean>
  upload: (file: File) => Promise<InventoryImportResponse | undefined>
}

const statuses = ['available', 'held', 'sold'] as const

/** A worksheet's number from its id (the board's worksheets; an editor's page has none). */
type NumberOf = (worksheetId: number) => number | undefined

/** One lot's row; with `actions`, its price and status can be changed and saved. */
function LotRow({ lot, actions, numberOf }: { lot: BoardLot; actions: LotActions | undefined; numberOf: NumberOf }) {
  const [price, setPrice] = useState(String(lot.price))
  const [status, setStatus] = useState<string>(lot.status)
  const editable = actions !== undefined && lot.status !== 'allocated'
  const save = (event: FormEvent) => {
    event.preventDefault()
    const change = {
      ...(Number(price) !== lot.price ? { price: Number(price) } : {}),
      ...(status !== lot.status ? { status } : {}),
    }
    void actions?.change(lot.lot, change)
  }
  const formId = `lot-${lot.lot.replace(/\W+/g, '-')}`
  return (
    <tr>
      <th scope="row">{lot.lot}</th>
      <td>{lot.models.join(', ')}</td>
      <td>{lot.release ?? ''}</td>
      <td>{lot.frontage ?? ''}</td>
      <td>
        {editable ? (
          <input
            form={formId}
            aria-label={`Price of ${lot.lot}, in dollars`}
            inputMode="numeric"
            pattern="[0-9]+"
            required
            value={price}
            onChange={(e) => setPrice(e.currentTarget.value)}
            size={9}
          />
        ) : (
          dollars(lot.price)
        )}
      </td>
      <td>
        {editable ? (
          <select
            form={formId}
            aria-label={`Status of ${lot.lot}`}
            value={status}
            onChange={(e) => setStatus(e.currentTarget.value)}
          >
            {statuses.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        ) : (
          lot.status + (lot.worksheetId === null ? '' : ` (worksheet ${numberOf(lot.worksheetId) ?? '?'})`)
        )}
      </td>
      {actions && (
        <td>
          {editable && (
            <form id={formId} onSubmit={save}>
              <button type="submit">
                Save<span className="sr-only"> {lot.lot}</span>
              </button>
            </form>
          )}
        </td>
      )}
    </tr>
  )
}

/** The builder's price list: a CSV file checked as `npm run inventory:import` checks it, each problem with its line. */
function PriceListUpload({ upload }: { upload: LotActions['upload'] }) {
  const [result, setResult] = useState<InventoryImportResponse>()
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const file = new FormData(event.currentTarget).get('file')
    if (file instanceof File && file.size > 0) void upload(file).then(setResult)
  }
  return (
    <form className="stack upload" onSubmit={submit}>
      <label htmlFor="price-list">Builder&apos;s price list (CSV: lot, models, price, release, frontage, status)</label>
      <input id="price-list" name="file" type="file" accept=".csv,text/csv" required />
      <p>
        <button type="submit">Upload price list</button>
      </p>
      {result && (
        <div role="status">
          <p>
            {result.rows} rows: {result.created} new, {result.changed} changed, {result.unchanged} unchanged
            {result.keptAllocated.length > 0 && `; kept as allocated: ${result.keptAllocated.join(', ')}`}
            {result.problems.length > 0 && `; ${result.problems.length} refused:`}
          </p>
          {result.problems.length > 0 && (
            <ul className="error">
              {result.problems.map((p) => (
                <li key={`${p.line}-${p.column ?? ''}`}>
                  Line {p.line}
                  {p.column !== null && `, column ${p.column}`}: {p.message}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </form>
  )
}

/** The launch's lots; owners and editors change a lot's price and status and upload the price list. */
export function LotsTable(props: { lots: readonly BoardLot[]; actions: LotActions | undefined; numberOf: NumberOf }) {
  const { lots, actions } = props
  return (
    <section aria-labelledby="lots-heading" className="panel">
      <h2 id="lots-heading">Lots</h2>
      {lots.length === 0 ? (
        <p>No inventory yet: upload the builder&apos;s price list.</p>
      ) : (
        <div className="table-wrap">
          <table className="audit lots">
            <thead>
              <tr>
                <th scope="col">Lot</th>
                <th scope="col">Models</th>
                <th scope="col">Release</th>
                <th scope="col">Frontage</th>
                <th scope="col">Price</th>
                <th scope="col">Status</th>
                {actions && <th scope="col">Change</th>}
              </tr>
            </thead>
            <tbody>
              {lots.map((lot) => (
                <LotRow
                  key={`${lot.lot}-${lot.price}-${lot.status}`}
                  lot={lot}
                  actions={actions}
                  numberOf={props.numberOf}
                />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {actions && <PriceListUpload upload={actions.upload} />}
    </section>
  )
}
