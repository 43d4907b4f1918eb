import { randomFillSync } from 'node:crypto'
import type Mail from 'nodemailer/lib/mailer'
import MailComposer from 'nodemailer/lib/mail-composer'
import type MimeNode from 'nodemailer/lib/mime-node'
import * as base64 from 'nodemailer/lib/base64'
import * as qp from 'nodemailer/lib/qp'

/**
 * A message composed whole in one synchronous pass: nodemailer's MailComposer builds the MIME tree (its headers,
 * address and word encoding, the choice of transfer encoding), and its own quoted-printable and base64 encoders turn
 * each part's content into text. The bytes are those MailComposer's build() streams (a test compares them), without
 * the streams: build() pipes every part through a pipeline of transform streams, which cost about half the CPU of a
 * send (the delivery process composes every message it sends).
 *
 * A part longer than 64 KiB, or content that is not a string or a Buffer, takes MailComposer's streams as before.
 */
export type RawMessage = { raw: Buffer; envelope: { from: string | false; to: string[] }; node: MimeNode }

// The multipart boundaries' random part, as MimeNode makes it (8 random bytes as hex) but from a pool filled now and
// then: MimeNode asks the system's generator once for each node of each message. Unpredictable either way, so no
// text a visitor types can close a part of the message it is in.
const boundaryPool = Buffer.alloc(8 * 512)
let boundaryNext = boundaryPool.length

function randomBoundary(): string {
  if (boundaryNext >= boundaryPool.length) {
    randomFillSync(boundaryPool)
    boundaryNext = 0
  }
  boundaryNext += 8
  return boundaryPool.toString('hex', boundaryNext - 8, boundaryNext)
}

// qp.Encoder encodes its input this many bytes at a time (ENCODE_SLICE_SIZE), each slice wrapped on its own: a part
// longer than that is composed by MailComposer's streams instead, which do just that.
const qpSlice = 64 * 1024

/**
 * A text as qp.Encoder writes it when it comes in one chunk: the encoder holds back the whitespace the text ends
 * with (to know whether a line break follows) and wraps the last line again with it encoded.
 */
function quotedPrintable(bytes: Buffer): string {
  let end = bytes.length
  while (end > 0 && (bytes[end - 1] === 0x20 || bytes[end - 1] === 0x09)) end--
  const body = qp.wrap(qp.encode(bytes.subarray(0, end)), 76)
  if (end === bytes.length) return body
  const lastLine = body.lastIndexOf('\n') + 1
  return body.slice(0, lastLine) + qp.wrap(body.slice(lastLine) + qp.encode(bytes.subarray(end)), 76)
}

/** A part's content as it is written (quoted-printable or base64, or as it is), or undefined if streams must. */
function encodedContent(node: MimeNode): string | Buffer | undefined {
  const content = node.content
  if (typeof content !== 'string' && !Buffer.isBuffer(content)) return undefined
  const encoding = node.getTransferEncoding()
  if (encoding === 'base64') return base64.wrap(base64.encode(content), 76)
  if (encoding !== 'quoted-printable') return content
  const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content
  return bytes.length > qpSlice ? undefined : quotedPrintable(bytes)
}

/**
 * Appends the node (its headers, its content, its parts between its boundaries) as MimeNode.stream writes it; false
 * if a part's content needs the streams.
 */
function write(node: MimeNode, out: Array<string | Buffer>): boolean {
  out.push(node.buildHeaders() + '\r\n\r\n')
  if (node.content) {
    const content = encodedContent(node)
    if (content === undefined) return false
    out.push(content)
  }
  if (!node.multipart) return true
  for (const [i, child] of node.childNodes.entries()) {
    out.push(`${i > 0 ? '\r\n' : ''}--${String(node.boundary)}\r\n`)
    if (!write(child, out)) return false
  }
  out.push(`\r\n--${String(node.boundary)}--\r\n`)
  return true
}

/** The parts joined, ending with a line break as MimeNode's last transform makes it. */
function joined(out: Array<string | Buffer>): Buffer {
  const raw = Buffer.concat(out.map((part) => (typeof part === 'string' ? Buffer.from(part, 'utf8') : part)))
  const last = raw[raw.length - 1]
  return last === 0x0a ? raw : Buffer.concat([raw, Buffer.from(last === 0x0d ? '\n' : '\r\n')])
}

/** Composes `message` (nodemailer's message options) into its bytes and SMTP envelope. */
export async function composeRawMessage(message: Mail.Options): Promise<RawMessage> {
  const node = new MailComposer({ ...message, baseBoundary: randomBoundary() }).compile()
  const envelope = node.getEnvelope() as RawMessage['envelope']
  const out: Array<string | Buffer> = []
  // A message of a part too long for one pass (or of content that is not text): MailComposer's streams.
  const raw = write(node, out) ? joined(out) : await node.build()
  return { raw, envelope, node }
}
