/**
 * The digest an approval of a funding or a break resolution is bound to
 * (docs/operator-actions.md, "The proposal digest"): SHA-256 over Python's
 * `json.dumps([workflow_id, proposer_token_sha256, facts], sort_keys=True, separators=(",", ":"))`,
 * which escapes every character outside printable ASCII as \uXXXX.
 *
 * Run as a program, it reads a JSON list of {"kind": "funding" | "resolution", "view": ...}
 * (the `funding_view` or `resolution` query's answer) on stdin and prints their digests.
 */
import { createHash } from 'node:crypto';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};

function quoted(text: string): string {
  let out = '"';
  for (let i = 0; i < text.length; i += 1) {
    const unit = text.charCodeAt(i);
    const char = text.charAt(i);
    const escape = ESCAPES[char];
    if (escape !== undefined) {
      out += escape;
    } else if (unit < 0x20 || unit > 0x7e) {
      out += `\\u${unit.toString(16).padStart(4, '0')}`;
    } else {
      out += char;
    }
  }
  return `${out}"`;
}

/** Python's json.dumps(value, sort_keys=True, separators=(",", ":")), for JSON without floats. */
export function canonicalJson(value: Json): string {
  if (value === null || typeof value === 'boolean') {
    return String(value);
  }
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) {
      throw new Error(`${value}: a proposal's facts hold integers and decimal text, no floats`);
    }
    return String(value);
  }
  if (typeof value === 'string') {
    return quoted(value);
  }
  if (Array.isArray(value)) {
    return `[${value.map(canonicalJson).join(',')}]`;
  }
  const keys = Object.keys(value).sort();
  return `{${keys.map((key) => `${quoted(key)}:${canonicalJson(value[key] as Json)}`).join(',')}}`;
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

export function proposalDigest(workflowId: string, proposerTokenSha256: string, facts: Json): string {
  return sha256Hex(canonicalJson([workflowId, proposerTokenSha256, facts]));
}

interface Proposed {
  proposed_by: { token_sha256: string } | null;
}

export interface FundingView extends Proposed {
  funding_id: string;
  account_id: string;
  amount: string;
  currency: string;
}

export interface ResolutionView extends Proposed {
  resolution_id: string;
  break_id: number;
  note: string;
  adjustment: { account_id: string; amount: string; currency: string } | null;
}

/** What `approve_funding` is bound to; empty while nobody proposed the funding. */
export function fundingDigest(view: FundingView): string {
  if (view.proposed_by === null) {
    return '';
  }
  const { account_id, amount, currency } = view;
  return proposalDigest(view.funding_id, view.proposed_by.token_sha256, {
    account_id,
    amount,
    currency,
  });
}

/** What `approve_resolution` and `approve_excess` of a break resolution are bound to. */
export function resolutionDigest(view: ResolutionView): string {
  if (view.proposed_by === null) {
    return '';
  }
  const { break_id, note, adjustment } = view;
  return proposalDigest(view.resolution_id, view.proposed_by.token_sha256, {
    break_id,
    note,
    adjustment: adjustment ?? null,
  });
}

type Case = { kind: 'funding'; view: FundingView } | { kind: 'resolution'; view: ResolutionView };

function digestOf(item: Case): string {
  return item.kind === 'funding' ? fundingDigest(item.view) : resolutionDigest(item.view);
}

if (require.main === module) {
  const chunks: Buffer[] = [];
  process.stdin.on('data', (chunk: Buffer) => chunks.push(chunk));
  process.stdin.on('end', () => {
    const cases = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Case[];
    process.stdout.write(`${JSON.stringify(cases.map(digestOf))}\n`);
  });
}
