import { useCallback, useEffect, useState } from 'react'
import type { AllocationBoard, BoardProposal, BoardWorksheet, Role } from '../../protocol.ts'
import { studioApi } from '../api.ts'
import { StudioLink } from '../navigation.tsx'
import { dollars } from './availability.ts'
import { LotsTable, type LotActions } from './LotsTable.tsx'
import { WorksheetCard, type WorksheetActions } from './WorksheetCard.tsx'

/** "Allocate in order"'s proposals: nothing is held until Confirm. */
function Proposals(props: { proposals: BoardProposal[]; onConfirm: () => void; onCancel: () => void }) {
  return (
    <section aria-labelledby="proposals-heading" className="panel">
      <h2 id="proposals-heading">Proposals</h2>
      <p>Nothing is allocated until you confirm: each worksheet in received order, its highest choice still free.</p>
      <div className="table-wrap" role="region" aria-labelledby="proposals-heading" tabIndex={0}>
        <table className="audit">
          <thead>
            <tr>
              <th scope="col">Worksheet</th>
              <th scope="col">Lot</th>
              <th scope="col">Model</th>
              <th scope="col">Price</th>
            </tr>
          </thead>
          <tbody>
            {props.proposals.map((p) => (
              <tr key={p.worksheetId}>
                <th scope="row">{p.number}</th>
                {'waitlist' in p ? (
                  <td colSpan={3}>Waitlisted</td>
                ) : (
                  <>
                    <td>{p.lot}</td>
                    <td>{p.model}</td>
                    <td>{dollars(p.price)}</td>
                  </>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p className="actions">
        <button type="button" className="primary" onClick={props.onConfirm}>
          Confirm
        </button>
        <button type="button" className="quiet" onClick={props.onCancel}>
          Cancel
        </button>
      </p>
    </section>
  )
}

/** The board's state and its calls: each refusal (a 409 when a lot went first) shown in the alert, then a refresh. */
function useBoard(slug: string, role: Role) {
  const [board, setBoard] = useState<AllocationBoard>()
  const [alert, setAlert] = useState('')
  const [status, setStatus] = useState('')
  const [proposals, setProposals] = useState<BoardProposal[]>()
  const load = useCallback(
    () =>
      (role === 'editor' ? studioApi.lots(slug).then((l) => ({ worksheets: [], ...l })) : studioApi.board(slug)).then(
        setBoard,
        (e: unknown) => setAlert((e as Error).message),
      ),
    [slug, role],
  )
  useEffect(() => void load(), [load])
  const run = async (what: () => Promise<unknown>, done: string): Promise<boolean> => {
    setAlert('')
    setStatus('')
    try {
      await what()
      setStatus(done)
      return true
    } catch (e) {
      setAlert((e as Error).message)
      return false
    } finally {
      await load()
    }
  }
  return { board, alert, status, proposals, setProposals, setAlert, setStatus, load, run }
}

/** The Allocation page of a launch: worksheets in received order, "Allocate in order", and the lots. */
export function Allocation({ slug, role }: { slug: string; role: Role }) {
  const { board, alert, status, proposals, setProposals, setAlert, setStatus, load, run } = useBoard(slug, role)
  const worksheetActions: WorksheetActions = {
    allocate: (w: BoardWorksheet, lot, model) =>
      run(() => studioApi.allocate(slug, { worksheetId: w.id, lot, model }), `${lot} allocated to worksheet ${w.number}.`),
    decide: (w, outcome, reason) =>
      run(
        () => studioApi.decide(slug, outcome, w.id, reason),
        `Worksheet ${w.number} ${outcome === 'waitlist' ? 'waitlisted' : 'declined'}.`,
      ),
  }
  const lotActions: LotActions | undefined =
    role === 'sales'
      ? undefined
      : {
          change: (lot, change) => run(() => studioApi.changeLot(slug, lot, change), `${lot} saved.`),
          upload: async (file) => {
            let answer
            await run(async () => (answer = await studioApi.importLots(slug, file)), 'Price list read.')
            return answer
          },
        }
  const propose = () =>
    void studioApi.proposals(slug).then(
      (p) => setProposals(p.proposals),
      (e: unknown) => setAlert((e as Error).message),
    )
  const confirm = async () => {
    const sent = proposals ?? []
    setProposals(undefined)
    await run(async () => {
      const { outcomes } = await studioApi.confirm(slug, sent)
      const refused = outcomes.flatMap((o) => (o.ok ? [] : [o.error]))
      if (refused.length > 0) throw new Error(refused.join(' '))
    }, `${sent.length} proposals confirmed.`)
  }
  const waiting = board?.worksheets.some((w) => w.outcome === 'received') ?? false
  return (
    <main className="page allocation" aria-labelledby="allocation-heading">
      <div className="page-head">
        <h1 id="allocation-heading">Allocation: {slug}</h1>
        {role !== 'sales' && <StudioLink to={{ view: 'launch', slug }}>Back to the launch</StudioLink>}
      </div>
      <div role="alert" className="error">
        {alert}
      </div>
      <p role="status">{status}</p>
      {!board && !alert && <p className="loading">Opening the board…</p>}
      {board && role !== 'editor' && (
        <section aria-labelledby="worksheets-heading">
          <div className="page-head">
            <h2 id="worksheets-heading">Worksheets in the order received</h2>
            {waiting && (
              <button type="button" className="primary" onClick={propose}>
                Allocate in order
              </button>
            )}
          </div>
          {proposals && (
            <Proposals proposals={proposals} onConfirm={() => void confirm()} onCancel={() => setProposals(undefined)} />
          )}
          {board.worksheets.length === 0 ? (
            <p>No worksheet yet.</p>
          ) : (
            <ol className="worksheets">
              {board.worksheets.map((w) => (
                <WorksheetCard key={`${w.id}-${w.outcome}`} worksheet={w} lots={board.lots} actions={worksheetActions} />
              ))}
            </ol>
          )}
        </section>
      )}
      {board && <LotsTable lots={board.lots} actions={lotActions} />}
      <button type="button" className="quiet" onClick={() => (setStatus(''), void load())}>
        Refresh
      </button>
    </main>
  )
}
