/**
 * Resolve a parked saga as two operators: the proposer proposes, the approver approves. Between
 * the two, the proposer's token is sent again as an approval, and the proposer approves its own
 * proposal: the worker refuses both, leaving no event in the saga's history.
 *
 *   node dist/resolve.js <saga workflow id> [proposer] [approver]
 *
 * Prints one JSON object: the proposal, each refusal and the saga's status after the approval.
 * Exits 0 when the worker refused the two and took the approval, 1 otherwise.
 */
import { Client, Connection } from '@temporalio/client';
import { APPROVE_UPDATE, ActionRefused, PROPOSE_UPDATE, approve, sendAction } from './actions';
import { DevIdentityProvider } from './tokens';

interface Refusal {
  call: string;
  type: string;
  message: string;
}

async function refusalOf(call: string, action: Promise<unknown>): Promise<Refusal | null> {
  try {
    await action;
  } catch (err) {
    if (err instanceof ActionRefused) {
      return { call, type: err.type, message: err.message };
    }
    throw err;
  }
  return null;
}

async function resolve(client: Client, workflowId: string, proposerName: string, approverName: string) {
  const identity = DevIdentityProvider.fromEnvironment();
  // The proposer may approve too (other sagas' proposals); the approver only approves.
  const proposer = identity.operator(proposerName, ['operator', 'approver']);
  const approver = identity.operator(approverName, ['approver']);

  const proposeProof = proposer.token({ workflowId, action: 'propose' });
  const proposalId = await sendAction<string>(client, workflowId, PROPOSE_UPDATE, {
    note: 'released the hold by hand in the core ledger',
    proof: proposeProof,
  });
  const refused = [
    await refusalOf(
      "approve with the proposer's token",
      sendAction(client, workflowId, APPROVE_UPDATE, {
        note: 'approving with the token I proposed with',
        proof: proposeProof,
        proposal_id: proposalId,
      }),
    ),
    await refusalOf(
      'the proposer approves its own proposal',
      approve(client, workflowId, proposer, proposalId, 'approving my own proposal'),
    ),
  ];
  const status = await approve(client, workflowId, approver, proposalId, 'checked the core ledger');
  return { workflow_id: workflowId, proposal_id: proposalId, refused, status };
}

async function main(argv: string[]): Promise<number> {
  const [workflowId, proposerName = 'ana', approverName = 'bo'] = argv;
  if (!workflowId) {
    process.stderr.write('usage: node dist/resolve.js <saga workflow id> [proposer] [approver]\n');
    return 2;
  }
  const connection = await Connection.connect({
    address: process.env['TEMPORAL_ADDRESS'] || 'localhost:7233',
  });
  try {
    const client = new Client({
      connection,
      namespace: process.env['TEMPORAL_NAMESPACE'] || 'default',
    });
    const report = await resolve(client, workflowId, proposerName, approverName);
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return report.refused.every((refusal) => refusal !== null) ? 0 : 1;
  } finally {
    await connection.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
