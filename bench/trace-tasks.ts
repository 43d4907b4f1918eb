import path from 'node:path'

/*
 * Reading a Chromium performance trace of a page load: the renderer main thread's top-level tasks, what ran in each,
 * the CPU time by kind of work, and the blocking Lighthouse's simulation would count. Used by bench/profile.ts.
 */

/** CPU slowdown of a mid-range phone against this machine, as Lighthouse's mobile preset assumes. */
export const cpuSlowdown = 4

/** One top-level main-thread task: when it started (ms after navigation), how long it took, what ran it. */
export type TaskFigure = {
  start: number
  duration: number
  cpu: number
  label: string
  detail: Record<string, number>
  /** One of the tasks Lighthouse's simulated first paint waits for: the first that parses HTML, lays out, or paints. */
  firstPaintNeeds?: boolean
}

/** The load profile: every task of 5 ms or more, the blocking time (beyond 50 ms each), grouped by label. */
export type LoadProfile = {
  /** The CPU slowdown the trace was recorded at (1: this machine's speed). */
  slowdown: number
  tasks: TaskFigure[]
  totalTaskMs: number
  /** The same tasks' CPU time: steadier than wall time on a shared machine. */
  totalCpuMs: number
  blockingMs: number
  /**
   * Blocking as Lighthouse's mobile run would count it, from CPU time: each task's CPU time (which CPU throttling
   * does not change: Chromium throttles by pausing the thread) times `cpuSlowdown`, beyond 50 ms, for every task but
   * the three Lighthouse's simulated first paint needs (the first with HTML parsing, with layout, with paint). Its
   * simulation (Lantern) runs every task of 10 ms or more one after another at 4× their length from the
   * document's arrival, and counts those that end after its first paint. CPU time, not wall time: on a machine
   * shared with other work, a task's wall time is mostly waiting for a core.
   */
  lanternBlockingMs: number
  byLabel: Array<{ label: string; tasks: number; ms: number; cpuMs: number; blockingMs: number; longestMs: number }>
  marks: Record<string, number>
  /** Script time by file over the whole recording, from the CPU profiler's samples (ms). */
  scriptByFile: Record<string, number>
  /** The main thread's CPU time by kind of work (`breakdownTrace`). */
  breakdown: WorkBreakdown
}

export type TraceEvent = {
  name: string
  cat: string
  ph: string
  ts: number
  dur?: number
  /** Thread (CPU) time: unlike dur, it leaves out the time other processes had the core. */
  tdur?: number
  pid: number
  tid: number
  args?: { name?: string; data?: Record<string, unknown> } & Record<string, unknown>
}

function shortUrl(url: unknown): string {
  if (typeof url !== 'string' || !url) return ''
  return path.basename(new URL(url, 'http://x').pathname).replace(/-[\w-]{8}(?=\.js$)/, '') || url
}

/** The frame an event's data names, if it names one. */
function frameIn(data: unknown): string | undefined {
  if (typeof data !== 'object' || data === null || !('frame' in data)) return undefined
  return typeof data.frame === 'string' ? data.frame : undefined
}

/**
 * What a task ran, named by the first telling event inside it. A navigation's commit comes first (it also ends the
 * previous document, whose pagehide would name it); so does an SVG image's own document (`pageFrame` given): parsed,
 * styled and laid out in a frame of its own.
 */
function labelOf(children: TraceEvent[], pageFrame?: string): string {
  const frames = children.map((e) => frameIn(e.args?.['beginData'] ?? e.args?.data)).filter(Boolean)
  if (pageFrame && frames.length && frames.every((frame) => frame !== pageFrame)) return 'SVG image document'
  if (children.some((e) => e.name === 'DocumentLoader::CommitNavigation')) return 'commit the navigation, start parsing'
  for (const event of children) {
    const data = event.args?.data ?? {}
    switch (event.name) {
      case 'EvaluateScript':
      case 'v8.evaluateModule':
        return `evaluate ${shortUrl(data.url ?? event.args?.['fileName']) || 'module'}`
      case 'v8.compileModule':
        return `compile ${shortUrl(event.args?.['fileName']) || 'module'}`
      case 'TimerFire':
        return `timer → ${labelOf(children.slice(children.indexOf(event) + 1), pageFrame).replace(/^timer → /, '')}`
      case 'EventDispatch':
        return `event ${String(data.type)}`
      case 'FunctionCall':
        return `call ${shortUrl(data.url)}${typeof data.functionName === 'string' && data.functionName ? ` ${data.functionName}` : ''}`.trim()
      case 'ParseHTML':
        return 'parse HTML'
      case 'ParseAuthorStyleSheet':
        return 'parse CSS'
      default:
    }
  }
  if (children.some((e) => e.name === 'UpdateLayoutTree' || e.name === 'Layout')) return 'style and layout'
  if (children.some((e) => e.name === 'Paint' || e.name === 'PrePaint' || e.name === 'Layerize')) return 'paint'
  if (children.some((e) => e.name.includes('Decode'))) return 'image decode'
  return 'other'
}

const detailKinds: Array<[string, RegExp]> = [
  ['image decode', /Decode (Image|LazyPixelRef)$|^ImageDecodeTask$/],
  ['paint image', /^PaintImage$/],
  ['script', /^(FunctionCall|EvaluateScript|v8\.evaluateModule|v8\.compile|V8\.|RunMicrotasks|TimerFire)/],
  ['style', /^(UpdateLayoutTree|ParseAuthorStyleSheet|RecalculateStyles)$/],
  ['layout', /^Layout$/],
  ['paint', /^(Paint|PrePaint|Layerize|Commit|UpdateLayer)/],
  ['parse', /^ParseHTML$/],
  ['gc', /^(MajorGC|MinorGC|V8\.GC|BlinkGC)/],
]

type ProfileNode = { id: number; parent?: number; callFrame: { url?: string; functionName?: string } }

/**
 * The V8 CPU profiler's samples of one thread: when each was taken, how long it stands for, and the script file of
 * the function on top (V8's own work, such as compiling or collecting garbage, by its name in brackets).
 */
function scriptSamples(
  events: TraceEvent[],
  pid: number,
  tid: number,
): Array<{ ts: number; us: number; file: string }> {
  const nodes = new Map<number, ProfileNode>()
  const out: Array<{ ts: number; us: number; file: string }> = []
  const byId = new Map<string, { ts: number }>()
  for (const e of events) {
    if (e.pid !== pid) continue
    if (e.name === 'Profile' && e.tid === tid)
      byId.set(String((e as { id?: string }).id), { ts: Number(e.args?.data?.startTime ?? e.ts) })
  }
  for (const e of events) {
    if (e.pid !== pid || e.name !== 'ProfileChunk') continue
    const profile = byId.get(String((e as { id?: string }).id))
    if (!profile) continue
    const data = e.args?.data as
      { cpuProfile?: { nodes?: ProfileNode[]; samples?: number[] }; timeDeltas?: number[] } | undefined
    for (const node of data?.cpuProfile?.nodes ?? []) nodes.set(node.id, node)
    const ids = data?.cpuProfile?.samples ?? []
    const deltas = data?.timeDeltas ?? []
    for (let i = 0; i < ids.length; i++) {
      const delta = deltas[i] ?? 0
      profile.ts += delta
      const frame = nodes.get(ids[i] as number)?.callFrame
      const file = frame?.url ? shortUrl(frame.url) : `(${frame?.functionName || 'program'})`
      out.push({ ts: profile.ts, us: 0, file })
    }
  }
  out.sort((a, b) => a.ts - b.ts)
  for (let i = 0; i < out.length; i++)
    (out[i] as { us: number }).us = Math.min((out[i + 1]?.ts ?? out[i]!.ts) - out[i]!.ts, 5000)
  return out.filter((s) => s.file !== '(idle)' && s.file !== '(program)' && s.file !== '(root)')
}

/** Reads a Chromium trace: the main thread of the page's renderer, its top-level tasks, the page's marks. */
export function analyseTrace(events: TraceEvent[], url: string, slowdown = cpuSlowdown): LoadProfile {
  const breakdown = breakdownTrace(events, url)
  // The page's renderer: the process whose main frame started loading `url` (not about:blank, not browser UI).
  // (Now and then navigationStart names no URL: then the renderer that parsed the page's HTML.)
  const parsed = events.find(
    (e) => e.name === 'ParseHTML' && (e.args?.['beginData'] as { url?: string } | undefined)?.url === url,
  )
  const navigation =
    events.find((e) => e.name === 'navigationStart' && e.args?.data?.documentLoaderURL === url) ??
    events.filter((e) => e.name === 'navigationStart' && e.pid === parsed?.pid && e.ts <= (parsed?.ts ?? 0)).at(-1) ??
    // No navigationStart in that renderer at all (seen now and then): count from the start of parsing the page.
    parsed
  // HTML is parsed on the renderer's main thread: its thread when the trace names no CrRendererMain for that process.
  const main =
    events.find((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain' && e.pid === navigation?.pid) ??
    (parsed && parsed.pid === navigation?.pid ? parsed : undefined)
  if (!navigation || !main) throw new Error(`The trace has no renderer that loaded ${url}.`)
  const busiest = { pid: main.pid, tid: main.tid }
  const pageFrame = (parsed?.args?.['beginData'] as { frame?: string } | undefined)?.frame
  const onMain = events
    .filter((e) => e.pid === busiest.pid && e.tid === busiest.tid && e.ph === 'X')
    .sort((a, b) => a.ts - b.ts)
  const navStart = navigation.ts
  const samples = scriptSamples(events, busiest.pid, busiest.tid)
  const marks: Record<string, number> = {}
  for (const e of events) {
    if (e.pid === busiest.pid && e.name.startsWith('profile:') && marks[e.name] === undefined)
      marks[e.name] = (e.ts - navStart) / 1000
    if (
      e.pid === busiest.pid &&
      e.name === 'firstContentfulPaint' &&
      e.ts >= navStart &&
      marks['first contentful paint'] === undefined
    ) {
      marks['first contentful paint'] = (e.ts - navStart) / 1000
    }
  }
  const tasks: TaskFigure[] = []
  const found = { parse: false, layout: false, paint: false }
  for (let i = 0; i < onMain.length; i++) {
    const task = onMain[i] as TraceEvent
    if (task.name !== 'RunTask' || (task.dur ?? 0) < 5000 || task.ts < navStart) continue
    const end = task.ts + (task.dur ?? 0)
    const children: TraceEvent[] = []
    for (let j = i + 1; j < onMain.length && (onMain[j] as TraceEvent).ts < end; j++)
      children.push(onMain[j] as TraceEvent)
    const detail: Record<string, number> = {}
    // Self-ish time per kind: the outermost event of each kind inside the task (nested ones are inside it).
    for (const [kind, pattern] of detailKinds) {
      let covered = 0
      let until = 0
      for (const child of children) {
        if (!pattern.test(child.name) || child.ts < until) continue
        covered += child.dur ?? 0
        until = child.ts + (child.dur ?? 0)
      }
      if (covered >= 1000) detail[kind] = Math.round(covered / 1000)
    }
    // Script time by file, from the CPU profiler's samples inside the task.
    const byFile: Record<string, number> = {}
    for (const sample of samples) {
      if (sample.ts < task.ts || sample.ts >= end) continue
      byFile[sample.file] = (byFile[sample.file] ?? 0) + sample.us
    }
    for (const [file, us] of Object.entries(byFile)) if (us >= 1000) detail[`js ${file}`] = Math.round(us / 1000)
    const does = (name: string) => children.some((e) => e.name === name)
    const firstPaintNeeds =
      (!found.parse && does('ParseHTML')) || (!found.layout && does('Layout')) || (!found.paint && does('Paint'))
    found.parse ||= does('ParseHTML')
    found.layout ||= does('Layout')
    found.paint ||= does('Paint')
    tasks.push({
      ...(firstPaintNeeds ? { firstPaintNeeds } : {}),
      start: Math.round((task.ts - navStart) / 1000),
      duration: Math.round((task.dur ?? 0) / 1000),
      cpu: Math.round((task.tdur ?? task.dur ?? 0) / 1000),
      label: labelOf(children, pageFrame),
      detail,
    })
  }
  const groups = new Map<string, LoadProfile['byLabel'][number]>()
  for (const task of tasks) {
    const group = groups.get(task.label) ?? {
      label: task.label,
      tasks: 0,
      ms: 0,
      cpuMs: 0,
      blockingMs: 0,
      longestMs: 0,
    }
    group.tasks++
    group.ms += task.duration
    group.cpuMs += task.cpu
    group.blockingMs += Math.max(0, task.duration - 50)
    group.longestMs = Math.max(group.longestMs, task.duration)
    groups.set(task.label, group)
  }
  return {
    slowdown,
    tasks,
    lanternBlockingMs: tasks
      .filter((t) => !t.firstPaintNeeds)
      .reduce((sum, t) => sum + Math.max(0, t.cpu * cpuSlowdown - 50), 0),
    totalTaskMs: tasks.reduce((sum, t) => sum + t.duration, 0),
    totalCpuMs: tasks.reduce((sum, t) => sum + t.cpu, 0),
    blockingMs: tasks.reduce((sum, t) => sum + Math.max(0, t.duration - 50), 0),
    byLabel: [...groups.values()].sort((a, b) => b.ms - a.ms),
    marks,
    breakdown,
    scriptByFile: Object.fromEntries(
      Object.entries(
        samples
          .filter((s) => s.ts >= navStart)
          .reduce<Record<string, number>>((sum, s) => ({ ...sum, [s.file]: (sum[s.file] ?? 0) + s.us }), {}),
      )
        .map(([file, us]) => [file, Math.round(us / 1000)] as const)
        .filter(([, ms]) => ms >= 2)
        .sort((a, b) => b[1] - a[1]),
    ),
  }
}

/**
 * CPU time (ms, at this machine's speed) of the page's main thread by kind of work, from load start to the trace's end.
 */
export type WorkBreakdown = Record<string, number>

// Event names by kind of work; an event's self time (less its children's) goes to its kind.
const workKinds: Array<[string, RegExp]> = [
  ['parse HTML', /^ParseHTML$/],
  ['parse SVG', /^DecodedDataDocumentParser/],
  ['parse CSS', /^ParseAuthorStyleSheet$/],
  ['style', /^(UpdateLayoutTree|RecalculateStyles)$/],
  ['layout', /^(Layout|UpdateLayerTree)$/],
  ['paint', /^(PrePaint|Paint|PaintImage|Layerize|Commit|UpdateLayer|CompositeLayers)$/],
  ['image decode', /Decode/],
  [
    'script',
    /^(FunctionCall|EvaluateScript|v8\.|V8\.|RunMicrotasks|TimerFire|EventDispatch|CompileScript|CompileCode)/,
  ],
  ['garbage collection', /^(MajorGC|MinorGC|BlinkGC|V8\.GC)/],
]

/**
 * Where the page's main thread spent its CPU time while it loaded: each trace event's self time by kind (parsing,
 * style, layout, paint, image decoding, script, the rest as "other"), with the work done inside SVG images'
 * own documents (each `<img>` of an SVG is a document with its own frame: its parse, style and layout) apart.
 */
export function breakdownTrace(events: TraceEvent[], url: string): WorkBreakdown {
  const parsed = events.find(
    (e) => e.name === 'ParseHTML' && (e.args?.['beginData'] as { url?: string } | undefined)?.url === url,
  )
  const navigation =
    events.find((e) => e.name === 'navigationStart' && e.args?.data?.documentLoaderURL === url) ??
    events.filter((e) => e.name === 'navigationStart' && e.pid === parsed?.pid && e.ts <= (parsed?.ts ?? 0)).at(-1) ??
    // No navigationStart in that renderer at all (seen now and then): count from the start of parsing the page.
    parsed
  // HTML is parsed on the renderer's main thread: its thread when the trace names no CrRendererMain for that process.
  const main =
    events.find((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain' && e.pid === navigation?.pid) ??
    (parsed && parsed.pid === navigation?.pid ? parsed : undefined)
  if (!navigation || !main) throw new Error(`The trace has no renderer that loaded ${url}.`)
  const pageFrame = (parsed?.args?.['beginData'] as { frame?: string } | undefined)?.frame
  const frameOf = (e: TraceEvent) => {
    return frameIn(e.args?.['beginData'] ?? e.args?.data)
  }
  const onMain = events
    .filter((e) => e.pid === main.pid && e.tid === main.tid && e.ph === 'X' && e.ts >= navigation.ts)
    .sort((a, b) => a.ts - b.ts || (b.dur ?? 0) - (a.dur ?? 0))
  const out: WorkBreakdown = {}
  const add = (key: string, us: number) => (out[key] = (out[key] ?? 0) + us)
  const stack: Array<{ event: TraceEvent; key: string }> = []
  for (const event of onMain) {
    while (stack.length && stack.at(-1)!.event.ts + (stack.at(-1)!.event.dur ?? 0) <= event.ts) stack.pop()
    const kind = workKinds.find(([, pattern]) => pattern.test(event.name))?.[0]
    const parent = stack.at(-1)
    const frame = frameOf(event)
    // An SVG image's document: a frame other than the page's, or parsing SVG bytes (DecodedDataDocumentParser).
    const inImage =
      (frame !== undefined && pageFrame !== undefined && frame !== pageFrame) ||
      (event.name === 'DecodedDataDocumentParser::AppendBytes' &&
        !stack.some((open) => open.event.name === 'DocumentLoader::CommitData')) ||
      (parent?.key.startsWith('SVG image') ?? false)
    const key = inImage
      ? `SVG image documents: ${kind === undefined || kind.startsWith('parse') ? 'parse' : kind}`
      : event.name === 'DecodedDataDocumentParser::AppendBytes'
        ? 'parse HTML'
        : (kind ?? parent?.key ?? 'other')
    const cpu = event.tdur ?? event.dur ?? 0
    if (parent) add(parent.key, -cpu)
    add(key, cpu)
    stack.push({ event, key })
  }
  return Object.fromEntries(
    Object.entries(out)
      .map(([key, us]) => [key, Math.round(us / 100) / 10] as const)
      .filter(([, value]) => value >= 0.5)
      .sort((a, b) => b[1] - a[1]),
  )
}
