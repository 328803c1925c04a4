/**
 * Common server.properties keys with the value Minecraft (Java Edition 1.21) uses when the file
 * lacks them: shown as defaults, so a setting such as `motd` is changed without knowing its key.
 */
export const propertyDefaults: Readonly<Record<string, string>> = {
  'allow-flight': 'false',
  'allow-nether': 'true',
  difficulty: 'easy',
  'enable-command-block': 'false',
  'enforce-whitelist': 'false',
  gamemode: 'survival',
  'generate-structures': 'true',
  hardcore: 'false',
  'level-name': 'world',
  'level-seed': '',
  'level-type': 'minecraft:normal',
  'max-players': '20',
  motd: 'A Minecraft Server',
  'online-mode': 'true',
  'player-idle-timeout': '0',
  pvp: 'true',
  'simulation-distance': '10',
  'spawn-monsters': 'true',
  'spawn-protection': '16',
  'view-distance': '10',
  'white-list': 'false',
};
