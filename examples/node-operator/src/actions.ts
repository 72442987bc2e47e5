/**
 * Operator actions on a parked saga, as Temporal updates on the saga's workflow
 * (docs/operator-actions.md, "On a parked saga").
 */
import { ApplicationFailure, Client, WorkflowUpdateFailedError } from '@temporalio/client';
import { Operator } from './tokens';

export const RETRY_UPDATE = 'retry_compensation';
export const PROPOSE_UPDATE = 'propose_resolution';
export const APPROVE_UPDATE = 'approve_resolution';

/** The argument of every update on a parked saga. */
export interface SagaAction {
  note: string;
  proof: string;
  /** An approval names the proposal it approves. */
  proposal_id?: string;
}

/** The worker refused the action: `type` is fundsaga's error class (OperatorRefusedError, ...). */
export class ActionRefused extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
    this.name = 'ActionRefused';
  }
}

/** Send `update` with `action`; its result, or ActionRefused with the worker's reason. */
export async function sendAction<T>(
  client: Client,
  workflowId: string,
  update: string,
  action: SagaAction,
): Promise<T> {
  try {
    return await client.workflow.getHandle(workflowId).executeUpdate<T, [SagaAction]>(update, {
      args: [action],
    });
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure) {
      throw new ActionRefused(err.cause.type ?? 'ApplicationFailure', err.cause.message);
    }
    throw err;
  }
}

/** Retry what the saga is parked on; the saga's status after the attempt. */
export async function retry(client: Client, workflowId: string, by: Operator, note: string) {
  const proof = by.token({ workflowId, action: 'retry' });
  return sendAction<string>(client, workflowId, RETRY_UPDATE, { note, proof });
}

/** Propose that what the saga is parked on was done by hand; the proposal's id (p1, ...). */
export async function propose(client: Client, workflowId: string, by: Operator, note: string) {
  const proof = by.token({ workflowId, action: 'propose' });
  return sendAction<string>(client, workflowId, PROPOSE_UPDATE, { note, proof });
}

/** Approve another operator's proposal; the saga's status once the decision is applied. */
export async function approve(
  client: Client,
  workflowId: string,
  by: Operator,
  proposalId: string,
  note: string,
) {
  const proof = by.token({ workflowId, action: 'approve', proposal: proposalId });
  return sendAction<string>(client, workflowId, APPROVE_UPDATE, {
    note,
    proof,
    proposal_id: proposalId,
  });
}
