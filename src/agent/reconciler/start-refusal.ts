export interface AgentCondition {
  id: string;
  reason: string;
  message: string;
  since: string;
}

/** What a server's context holds of a start refusal that comes with each desired state (RUNTIME_MISSING). */
interface RefusalContext {
  conditions: AgentCondition[];
  runtimeRefusal?: AgentCondition;
}

/** The context after a desired state brought `refusal`: its condition replaces the last one, or the last one clears. */
export function withRuntimeRefusal(context: RefusalContext, refusal: AgentCondition | undefined): RefusalContext {
  const others = context.conditions.filter((c) => c.id !== context.runtimeRefusal?.id);
  return { runtimeRefusal: refusal, conditions: refusal ? [...others, refusal] : others };
}
