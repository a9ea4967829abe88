/**
 * Waivers: `vendor_spec.waivers: [{action: "entity.action", param?, reason}]`.
 * A waiver with `param` accepts the mismatches of that action about that param (manifest
 * name or wire name); without `param` it accepts all of the action's mismatches. A waiver
 * that accepts nothing is reported as a stale-waiver mismatch (so waivers cannot rot).
 */
import { subjectOf, type Mismatch, type WaivedMismatch, type Waiver } from './types.js';

export function waiverMatches(w: Waiver, m: Mismatch): boolean {
  if (m.entity === undefined || m.action === undefined) return false;
  if (w.action !== subjectOf(m)) return false;
  if (w.param === undefined) return true;
  return w.param === m.param || (m.wire !== undefined && w.param === m.wire);
}

export interface WaiverOutcome {
  readonly unwaived: Mismatch[];
  readonly waived: WaivedMismatch[];
}

/**
 * Splits mismatches into unwaived and waived; stale waivers are appended to `unwaived`.
 * `knownActions` (entity.action names of the manifest) only sharpens the stale message.
 */
export function applyWaivers(mismatches: readonly Mismatch[], waivers: readonly Waiver[], knownActions?: ReadonlySet<string>): WaiverOutcome {
  const used = new Set<number>();
  const unwaived: Mismatch[] = [];
  const waived: WaivedMismatch[] = [];
  for (const m of mismatches) {
    let first: Waiver | undefined;
    waivers.forEach((w, i) => {
      if (waiverMatches(w, m)) {
        used.add(i);
        first ??= w;
      }
    });
    if (first) waived.push({ mismatch: m, waiver: first });
    else unwaived.push(m);
  }
  waivers.forEach((w, i) => {
    if (used.has(i)) return;
    const [entity, action] = w.action.split('.');
    const unknown = knownActions !== undefined && !knownActions.has(w.action);
    const what = w.param !== undefined ? `stale waiver for param '${w.param}'` : 'stale waiver for the whole action';
    unwaived.push({
      kind: 'stale_waiver',
      entity: entity ?? w.action,
      action: action ?? '',
      param: w.param,
      message: `${what}: ${unknown ? 'the manifest has no such action' : 'it matches no mismatch'}; remove it`,
      where: `vendor_spec.waivers[${i}]`,
    });
  });
  return { unwaived, waived };
}
