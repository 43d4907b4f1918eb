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
      <div className="table-wrap">
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

type Board = ReturnType<typeof useBoard>

/** What the page's buttons do: each decision, the lots' changes (not for sales), "Allocate in order" and Confirm. */
function actionsOf(slug: string, role: Role, b: Board) {
  const worksheet: WorksheetActions = {
    allocate: (w: BoardWorksheet, lot, model) =>
      b.run(
        () => studioApi.allocate(slug, { worksheetId: w.id, lot, model }),
        `${lot} allocated to worksheet ${w.number}.`,
      ),
    decide: (w, outcome, reason) =>
      b.run(
        () => studioApi.decide(slug, outcome, w.id, reason),
        `Worksheet ${w.number} ${outcome === 'waitlist' ? 'waitlisted' : 'declined'}.`,
      ),
  }
  const lots: LotActions | undefined =
    role === 'sales'
      ? undefined
      : {
          change: (lot, change) => b.run(() => studioApi.changeLot(slug, lot, change), `${lot} saved.`),
          upload: async (file) => {
            let answer
            await b.run(async () => (answer = await studioApi.importLots(slug, file)), 'Price list read.')
            return answer
          },
        }
  const propose = () =>
    void studioApi.proposals(slug).then(
      (p) => b.setProposals(p.proposals),
      (e: unknown) => b.setAlert((e as Error).message),
    )
  const confirm = async () => {
    const sent = b.proposals ?? []
    b.setProposals(undefined)
    await b.run(async () => {
      const { outcomes } = await studioApi.confirm(slug, sent)
      const refused = outcomes.flatMap((o) => (o.ok ? [] : [o.error]))
      if (refused.length > 0) throw new Error(refused.join(' '))
    }, `${sent.length} proposals confirmed.`)
  }
  return { worksheet, lots, propose, confirm }
}

/** The worksheets in received order, "Allocate in order" and its proposals. */
function Worksheets({
  board,
  b,
  actions,
}: {
  board: AllocationBoard
  b: Board
  actions: ReturnType<typeof actionsOf>
}) {
  const waiting = board.worksheets.some((w) => w.outcome === 'received')
  return (
    <section aria-labelledby="worksheets-heading">
      <div className="page-head">
        <h2 id="worksheets-heading">Worksheets in the order received</h2>
        {waiting && (
          <button type="button" className="primary" onClick={actions.propose}>
            Allocate in order
          </button>
        )}
      </div>
      {b.proposals && (
        <Proposals
          proposals={b.proposals}
          onConfirm={() => void actions.confirm()}
          onCancel={() => b.setProposals(undefined)}
        />
      )}
      {board.worksheets.length === 0 ? (
        <p>No worksheet yet.</p>
      ) : (
        <ol className="worksheets">
          {board.worksheets.map((w) => (
            <WorksheetCard key={`${w.id}-${w.outcome}`} worksheet={w} lots={board.lots} actions={actions.worksheet} />
          ))}
        </ol>
      )}
    </section>
  )
}

/** The Allocation page of a launch: worksheets in received order, "Allocate in order", and the lots. */
export function Allocation({ slug, accountRole }: { slug: string; accountRole: Role }) {
  const b = useBoard(slug, accountRole)
  const { board } = b
  const actions = actionsOf(slug, accountRole, b)
  return (
    <main className="page allocation" aria-labelledby="allocation-heading">
      <div className="page-head">
        <h1 id="allocation-heading">Allocation: {slug}</h1>
        {accountRole !== 'sales' && <StudioLink to={{ view: 'launch', slug }}>Back to the launch</StudioLink>}
      </div>
      <div role="alert" className="error">
        {b.alert}
      </div>
      <p role="status">{b.status}</p>
      {!board && !b.alert && <p className="loading">Opening the board…</p>}
      {board && accountRole !== 'editor' && <Worksheets board={board} b={b} actions={actions} />}
      {board && (
        <LotsTable
          lots={board.lots}
          actions={actions.lots}
          numberOf={(id) => board.worksheets.find((w) => w.id === id)?.number}
        />
      )}
      <button type="button" className="quiet" onClick={() => (b.setStatus(''), void b.load())}>
        Refresh
      </button>
    </main>
  )
}
