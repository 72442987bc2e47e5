/**
 * Operator access tokens: ES256 JWTs bound to one action by an RFC 9396 authorization detail
 * (docs/operator-actions.md, "The proof").
 *
 * In production a service asks the organisation's identity provider for each token; the worker
 * trusts that provider only (FUNDSAGA_OPERATOR_JWKS). This example stands in for it with the
 * development identity provider that `fundsaga dev` makes (FUNDSAGA_DEV_IDENTITY: its ES256
 * signing key and JWKS), which development and test workers trust and nothing else does.
 */
import { KeyObject, createPrivateKey, randomUUID, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const AUTHORIZATION_DETAIL_TYPE = 'fundsaga_operator_action';
export const ROLES_CLAIM = 'fundsaga_roles';
export const TOKEN_SECONDS = 300;

export type Role = 'operator' | 'approver' | 'treasury';

/** The one action a token authorises. */
export interface OperatorBinding {
  /** The workflow the action is sent to: the saga's id, `recovery:<saga id>`, `funding-<key>`, ... */
  workflowId: string;
  /** retry, propose, approve, propose_recovery, approve_recovery, approve_excess, or an audit kind. */
  action: string;
  /** An approval's proposal: its id (p1, r1), or a funding's or break resolution's digest. */
  proposal?: string;
}

/** Who actions are by: a fresh token for each one. */
export interface Operator {
  readonly name: string;
  token(binding: OperatorBinding): string;
}

export function authorizationDetail(binding: OperatorBinding): Record<string, string> {
  const detail: Record<string, string> = {
    type: AUTHORIZATION_DETAIL_TYPE,
    workflow_id: binding.workflowId,
    action: binding.action,
  };
  if (binding.proposal) {
    detail['proposal'] = binding.proposal;
  }
  return detail;
}

/** A JWT signed with ES256: the signature is r || s, 32 bytes each, as JWS wants it. */
export function signEs256(claims: object, key: KeyObject, kid: string): string {
  const header = { alg: 'ES256', typ: 'JWT', kid };
  const input = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
  const signature = sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' });
  return `${input}.${signature.toString('base64url')}`;
}

function base64url(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}

/** The development identity provider in `directory` (signing-key.pem, jwks.json). */
export class DevIdentityProvider {
  private readonly key: KeyObject;
  private readonly kid: string;

  constructor(
    directory: string,
    readonly issuer: string,
    readonly audience: string,
  ) {
    this.key = createPrivateKey(readFileSync(join(directory, 'signing-key.pem')));
    const jwks = JSON.parse(readFileSync(join(directory, 'jwks.json'), 'utf8')) as {
      keys: { kid: string }[];
    };
    const first = jwks.keys[0];
    if (first === undefined) {
      throw new Error(`${directory}/jwks.json holds no key`);
    }
    this.kid = first.kid;
  }

  /** As the worker that trusts it is configured: FUNDSAGA_DEV_IDENTITY, and the issuer and
   * audience of the development provider unless FUNDSAGA_OPERATOR_ISSUER/AUDIENCE say others. */
  static fromEnvironment(env: NodeJS.ProcessEnv = process.env): DevIdentityProvider {
    return new DevIdentityProvider(
      env['FUNDSAGA_DEV_IDENTITY'] || '.fundsaga/dev-identity',
      env['FUNDSAGA_OPERATOR_ISSUER'] || 'fundsaga-dev',
      env['FUNDSAGA_OPERATOR_AUDIENCE'] || 'fundsaga',
    );
  }

  operator(name: string, roles: Role[]): Operator {
    return { name, token: (binding) => this.mint(name, roles, binding) };
  }

  mint(name: string, roles: Role[], binding: OperatorBinding): string {
    const now = Math.floor(Date.now() / 1000);
    const claims = {
      iss: this.issuer,
      aud: this.audience,
      sub: name,
      preferred_username: name,
      [ROLES_CLAIM]: roles,
      iat: now,
      exp: now + TOKEN_SECONDS,
      jti: randomUUID(),
      authorization_details: [authorizationDetail(binding)],
    };
    return signEs256(claims, this.key, this.kid);
  }
}
