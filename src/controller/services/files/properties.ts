import { isManagedProperty } from '../../../shared/properties-file.js';
import { refuseWhileFilesInMotion, type FileChangesUnderWay } from './file-changes.js';
import { agentDeadlines, type NodeCalls } from '../../link/node-calls.js';
import type { ServerAggregate } from '../servers/aggregate.js';
import type { AuditScope } from '../../core/audit-scope.js';
import type { Caller } from '../../core/caller.js';
import { invalidRequest, DomainError } from '../../core/errors.js';
import { knownProperties, propertyValueProblem, type PropertyKind } from '../../domain/server-properties.js';
import { maxPropertyKeyLength } from '../../schemas/operations.js';
import type { ServerDoc } from '../../store/records.js';
import type { TemplateCatalog } from '../../adapters/software/template-catalog.js';

const valuesOf = (response: Awaited<ReturnType<NodeCalls['ask']>>): Record<string, string> =>
  response.payload === 'properties' ? { ...response.properties.values } : {};

/** server.properties of a server, read and changed by its Agent on the Node's disk. */
export class PropertiesService {
  constructor(
    private readonly servers: ServerAggregate,
    private readonly calls: NodeCalls,
    private readonly templates: TemplateCatalog,
    private readonly changes: FileChangesUnderWay,
  ) {}

  /** Keys Cairn writes at a member's every start (e.g. online-mode): the operator's only outside the network. */
  private memberKeys(doc: ServerDoc): string[] {
    return doc.desired.inNetwork ? Object.keys(this.templates.get(doc.desired.software.template)?.network?.memberConfig ?? {}) : [];
  }

  async get(caller: Caller, serverId: string): Promise<{ properties: Record<string, string>; known: Readonly<Record<string, PropertyKind>>; managed: Record<string, string> }> {
    const doc = await this.servers.load(caller, serverId, 'servers.read');
    const properties = valuesOf(await this.calls.ask(doc, { body: 'propertiesGet', propertiesGet: { serverId } }, { timeoutMs: agentDeadlines.quick }));
    return { properties, known: knownProperties, managed: this.managedOf(doc, Object.keys(properties)) };
  }

  /** Why each managed key is locked: clients show it rather than repeat the rules. */
  private managedOf(doc: ServerDoc, keys: string[]): Record<string, string> {
    const managed: Record<string, string> = {};
    for (const key of keys.filter(isManagedProperty)) managed[key] = 'Cairn sets the ports, RCON and query at every start.';
    for (const key of this.memberKeys(doc)) managed[key] = 'Cairn sets it at every start while the server is a network member.';
    return managed;
  }

  async patch(caller: Caller, serverId: string, change: Record<string, string | null>, audit: AuditScope) {
    const keys = Object.keys(change);
    audit.target(serverId).detail({ keys });
    for (const key of keys) {
      // eslint-disable-next-line no-control-regex
      if (key.length === 0 || key.length > maxPropertyKeyLength || /[\u0000-\u001f\u007f]/.test(key)) {
        throw invalidRequest(`body: keys are 1 to ${maxPropertyKeyLength} characters without control characters.`);
      }
    }
    for (const [key, value] of Object.entries(change)) {
      const problem = value === null ? undefined : propertyValueProblem(key, value);
      if (problem) throw invalidRequest(`body.${key}: ${problem}`);
    }
    const managed = keys.filter(isManagedProperty);
    if (managed.length > 0) throw new DomainError('managed_property', `Cairn manages ${managed.join(', ')}; they cannot be changed.`);
    const doc = await this.servers.load(caller, serverId, 'servers.update');
    refuseWhileFilesInMotion(doc);
    const memberKeys = keys.filter((k) => this.memberKeys(doc).includes(k));
    if (memberKeys.length > 0) throw new DomainError('managed_property', `Cairn manages ${memberKeys.join(', ')} while the server is a network member.`);
    const set: Record<string, string> = {};
    const remove: string[] = [];
    for (const [key, value] of Object.entries(change)) {
      if (value === null) remove.push(key);
      else set[key] = value;
    }
    const response = await this.changes.run(serverId, () => this.calls.ask(doc, { body: 'propertiesPatch', propertiesPatch: { serverId, set, remove } }, { timeoutMs: agentDeadlines.quick }));
    return { properties: valuesOf(response), appliesAtNextStart: true as const };
  }
}
