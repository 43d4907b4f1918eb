import { useState, type FormEvent } from 'react'
import type { BoardLot, BoardWorksheet } from '../../protocol.ts'
import { formatMoment } from '../format.ts'
import { choicesNow, choiceWords, outcomeWords, type ChoiceNow } from './availability.ts'

/** What a worksheet's buttons ask the board to do; the board calls the server and refreshes. */
export type WorksheetActions = {
  allocate: (worksheet: BoardWorksheet, lot: string, model: string) => Promise<boolean>
  decide: (worksheet: BoardWorksheet, outcome: 'waitlist' | 'decline', reason: string) => Promise<boolean>
}

type Asking = 'allocate' | 'waitlist' | 'decline' | undefined

/** The form of Allocate: which choice (the highest still available first), then Allocate. */
function AllocateForm(props: { worksheet: BoardWorksheet; choices: ChoiceNow[]; onDone: (lot: ChoiceNow) => void }) {
  const { worksheet, choices } = props
  const first = choices.find((c) => c.lot !== undefined)
  const [picked, setPicked] = useState(first?.index)
  const submit = (event: FormEvent) => {
    event.preventDefault()
    const choice = choices.find((c) => c.index === picked)
    if (choice?.lot) props.onDone(choice)
  }
  if (!first) return <p>None of its choices is available now: waitlist or decline it.</p>
  return (
    <form onSubmit={submit} className="stack">
      <fieldset>
        <legend>Allocate worksheet {worksheet.number}: which choice</legend>
        {choices.map((c) => (
          <label key={c.index} className="check">
            <input
              type="radio"
              name={`choice-${worksheet.id}`}
              checked={picked === c.index}
              disabled={c.lot === undefined}
              onChange={() => setPicked(c.index)}
            />
            {c.index + 1}. {choiceWords(c)}
            {c.lot === undefined ? ' (not available)' : c.named === null ? ` (${c.lot})` : ''}
          </label>
        ))}
      </fieldset>
      <p>
        <button type="submit" className="primary">
          Allocate {choices.find((c) => c.index === picked)?.lot}
        </button>
      </p>
    </form>
  )
}

/** The form of Waitlist and Decline: the reason, which goes into the realtor's e-mail. */
function ReasonForm(props: {
  worksheet: BoardWorksheet
  outcome: 'waitlist' | 'decline'
  onDone: (r: string) => void
}) {
  const id = `reason-${props.worksheet.id}`
  const verb = props.outcome === 'waitlist' ? 'Waitlist' : 'Decline'
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const value = new FormData(event.currentTarget).get('reason')
    props.onDone(typeof value === 'string' ? value : '')
  }
  return (
    <form onSubmit={submit} className="stack">
      <label htmlFor={id}>
        Reason for the realtor&apos;s e-mail ({verb.toLowerCase()} worksheet {props.worksheet.number})
      </label>
      <textarea id={id} name="reason" rows={2} required={props.outcome === 'decline'} />
      <p>
        <button type="submit" className={props.outcome === 'decline' ? 'danger' : 'primary'}>
          {verb} worksheet {props.worksheet.number}
        </button>
      </p>
    </form>
  )
}

/** The choices of a worksheet; while it waits, each says whether it is still available. */
function ChoiceList({ choices, open }: { choices: ChoiceNow[]; open: boolean }) {
  return (
    <ol className="choices">
      {choices.map((c) => (
        <li key={c.index}>
          {choiceWords(c)}
          {open && (
            <>
              : <span className={c.lot ? 'status-live' : 'status-broken'}>{c.lot ? 'available' : 'not available'}</span>
            </>
          )}
        </li>
      ))}
    </ol>
  )
}

/** One worksheet on the board: its number, received time, realtor, client, choices, outcome and buttons. */
export function WorksheetCard(props: {
  worksheet: BoardWorksheet
  lots: readonly BoardLot[]
  actions: WorksheetActions
}) {
  const { worksheet, actions } = props
  const [asking, setAsking] = useState<Asking>()
  const choices = choicesNow(worksheet, props.lots)
  const open = worksheet.outcome === 'received' || worksheet.outcome === 'waitlisted'
  const done = (ok: boolean) => ok && setAsking(undefined)
  const buttons: Array<[Exclude<Asking, undefined>, string]> = [
    ['allocate', 'Allocate'],
    ...(worksheet.outcome === 'received' ? [['waitlist', 'Waitlist'] as ['waitlist', string]] : []),
    ['decline', 'Decline'],
  ]
  return (
    <li className="panel worksheet" aria-labelledby={`worksheet-${worksheet.id}`}>
      <h3 id={`worksheet-${worksheet.id}`}>Worksheet {worksheet.number}</h3>
      <dl className="facts">
        <dt>Received</dt>
        <dd>{formatMoment(worksheet.receivedAt)}</dd>
        <dt>Realtor</dt>
        <dd>{worksheet.realtorEmail}</dd>
        <dt>Client</dt>
        <dd>{worksheet.clientName}</dd>
        <dt>Outcome</dt>
        <dd>{outcomeWords(worksheet)}</dd>
      </dl>
      <ChoiceList choices={choices} open={open} />
      {open && (
        <div className="actions" role="group" aria-label={`Worksheet ${worksheet.number}`}>
          {buttons.map(([kind, label]) => (
            <button key={kind} type="button" aria-expanded={asking === kind} onClick={() => setAsking(kind)}>
              {label}
            </button>
          ))}
        </div>
      )}
      {open && asking === 'allocate' && (
        <AllocateForm
          worksheet={worksheet}
          choices={choices}
          onDone={(c) => void actions.allocate(worksheet, c.lot!, c.model).then(done)}
        />
      )}
      {open && (asking === 'waitlist' || asking === 'decline') && (
        <ReasonForm
          worksheet={worksheet}
          outcome={asking}
          onDone={(reason) => void actions.decide(worksheet, asking, reason).then(done)}
        />
      )}
    </li>
  )
}
