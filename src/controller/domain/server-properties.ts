/**
 * The server.properties keys whose values Cairn checks, with what each takes (Minecraft Java
 * Edition 1.21): a typo such as `pvp=nope` is refused when it is sent, not silently read by the
 * game as its default at the next start. Keys not listed take any text; keys Cairn manages (ports,
 * RCON, query) are refused before their values matter, so they are not listed.
 */

export type PropertyKind =
  | { type: 'boolean' }
  | { type: 'integer'; minimum: number; maximum: number }
  /** `numbered`: the game also reads a value's position in `values` (`difficulty=2`), as files written long ago say. */
  | { type: 'enum'; values: string[]; numbered?: boolean };

const boolean: PropertyKind = { type: 'boolean' };
const integer = (minimum: number, maximum = 2_147_483_647): PropertyKind => ({ type: 'integer', minimum, maximum });

export const knownProperties: Readonly<Record<string, PropertyKind>> = {
  'accepts-transfers': boolean,
  'allow-flight': boolean,
  'allow-nether': boolean,
  'broadcast-console-to-ops': boolean,
  'broadcast-rcon-to-ops': boolean,
  difficulty: { type: 'enum', values: ['peaceful', 'easy', 'normal', 'hard'], numbered: true },
  'enable-command-block': boolean,
  'enable-jmx-monitoring': boolean,
  'enable-status': boolean,
  'enforce-secure-profile': boolean,
  'enforce-whitelist': boolean,
  'entity-broadcast-range-percentage': integer(10, 1000),
  'force-gamemode': boolean,
  'function-permission-level': integer(1, 4),
  gamemode: { type: 'enum', values: ['survival', 'creative', 'adventure', 'spectator'], numbered: true },
  'generate-structures': boolean,
  hardcore: boolean,
  'hide-online-players': boolean,
  'level-type': { type: 'enum', values: ['minecraft:normal', 'minecraft:flat', 'minecraft:large_biomes', 'minecraft:amplified', 'minecraft:single_biome_surface'] },
  'log-ips': boolean,
  'max-chained-neighbor-updates': integer(-2_147_483_648),
  'max-players': integer(0),
  'max-tick-time': integer(-1, Number.MAX_SAFE_INTEGER),
  'max-world-size': integer(1, 29_999_984),
  'network-compression-threshold': integer(-1),
  'online-mode': boolean,
  'op-permission-level': integer(0, 4),
  'player-idle-timeout': integer(0),
  'prevent-proxy-connections': boolean,
  pvp: boolean,
  'rate-limit': integer(0),
  'require-resource-pack': boolean,
  'simulation-distance': integer(3, 32),
  'spawn-animals': boolean,
  'spawn-monsters': boolean,
  'spawn-npcs': boolean,
  'spawn-protection': integer(0),
  'sync-chunk-writes': boolean,
  'use-native-transport': boolean,
  'view-distance': integer(3, 32),
  'white-list': boolean,
};

/** Why `value` does not fit `key`, in words for the operator; undefined when it fits or the key is not checked. */
export function propertyValueProblem(key: string, value: string): string | undefined {
  const kind = Object.hasOwn(knownProperties, key) ? knownProperties[key] : undefined;
  if (!kind) return undefined;
  switch (kind.type) {
    case 'boolean':
      return value === 'true' || value === 'false' ? undefined : `must be true or false, not '${value}'.`;
    case 'integer': {
      const n = /^-?\d{1,16}$/.test(value) ? Number(value) : NaN;
      return n >= kind.minimum && n <= kind.maximum ? undefined : `must be a whole number from ${kind.minimum} to ${kind.maximum}, not '${value}'.`;
    }
    case 'enum': {
      const numbered = kind.numbered === true && /^\d$/.test(value) && Number(value) < kind.values.length;
      return kind.values.includes(value) || numbered ? undefined : `must be one of ${kind.values.join(', ')}, not '${value}'.`;
    }
  }
}
