import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { formats } from '../output.js';
import { sortKeys } from '../top-rows.js';

/** Words offered after each command path (`get`, `create server`): its subcommands, the types its first argument names, its flags. */
export function completionWords(program: Command): Map<string, string[]> {
  const table = new Map<string, string[]>();
  const walk = (cmd: Command, path: string[]) => {
    const first = cmd.registeredArguments[0]?.description ?? '';
    const types = /^[a-z-]+(\|[a-z-]+)+$/.test(first) ? first.split('|') : [];
    const flags = cmd.options.flatMap((o) => [o.long, o.short].filter((f): f is string => f !== undefined));
    table.set(path.join(' '), [...cmd.commands.map((c) => c.name()), ...types, ...flags]);
    for (const sub of cmd.commands) walk(sub, [...path, sub.name()]);
  };
  walk(program, []);
  return table;
}

/** Flags followed by a value, so the value is not taken for an argument. */
function valuedFlags(program: Command): string[] {
  const flags = new Set<string>();
  const walk = (cmd: Command) => {
    for (const o of cmd.options) if (o.required || o.optional) [o.long, o.short].forEach((f) => f && flags.add(f));
    cmd.commands.forEach(walk);
  };
  walk(program);
  return [...flags];
}

const names = (plural: string) => `$(cairn get ${plural} -o name 2>/dev/null | cut -d/ -f2-)`;

/**
 * A bash completion function generated from the command tree: verbs, types, flags and `-o`
 * formats, and the names of servers, Nodes, teams and schedules (asked of the Controller with `-o name`).
 */
function bash(program: Command): string {
  const words = [...completionWords(program)].map(([path, list]) => `    "${path}") echo "${list.join(' ')}" ;;`).join('\n');
  return `_cairn_words() {
  case "$1" in
${words}
    *) return 1 ;;
  esac
}
_cairn() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" path="" type="" args=0 i w
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    case "$w" in
      ${valuedFlags(program).join('|')}) ((i++)); continue ;;
      -*) continue ;;
    esac
    if [[ $args -eq 0 ]] && _cairn_words "\${path:+$path }$w" >/dev/null; then path="\${path:+$path }$w"
    else ((args++)); [[ $args -eq 1 ]] && type="$w"; fi
  done
  case "$prev" in
    -o|--output) COMPREPLY=($(compgen -W "${formats.join(' ')}" -- "$cur")); return ;;
    --sort-by) COMPREPLY=($(compgen -W "${sortKeys.join(' ')}" -- "$cur")); return ;;
    --to|--node) COMPREPLY=($(compgen -W "${names('nodes')}" -- "$cur")); return ;;
    --team) COMPREPLY=($(compgen -W "${names('teams')}" -- "$cur")); return ;;
    --server) COMPREPLY=($(compgen -W "${names('servers')}" -- "$cur")); return ;;
  esac
  if [[ $cur != -* ]]; then
    case "$path:$args:$type" in
      start:0:*|stop:0:*|restart:0:*|logs:0:*|exec:0:*|backup:0:*|migrate:0:*|get:1:server*|describe:1:server*|delete:1:server*|wait:1:server*)
        COMPREPLY=($(compgen -W "${names('servers')}" -- "$cur")); return ;;
      drain:0:*|get:1:node*|describe:1:node*|delete:1:node*)
        COMPREPLY=($(compgen -W "${names('nodes')}" -- "$cur")); return ;;
      run:1:*|get:1:schedule*|delete:1:schedule*)
        COMPREPLY=($(compgen -W "${names('schedules')}" -- "$cur")); return ;;
    esac
    [[ $args -gt 0 ]] && return
  fi
  COMPREPLY=($(compgen -W "$(_cairn_words "$path")" -- "$cur"))
}
complete -F _cairn cairn
`;
}

export function registerCompletion(program: Command): void {
  program.command('completion')
    .description('print a completion script: source <(cairn completion bash|zsh)')
    .argument('<shell>', 'bash|zsh')
    .action((shell: string) => {
      if (shell !== 'bash' && shell !== 'zsh') throw new UsageError(`no completion for "${shell}" (bash or zsh)`);
      // zsh runs the same function through its bash completion emulation.
      const prelude = shell === 'bash' ? '# cairn completion for bash: source <(cairn completion bash)\n' : '#compdef cairn\n# cairn completion for zsh: source <(cairn completion zsh)\nautoload -U +X compinit && compinit\nautoload -U +X bashcompinit && bashcompinit\n';
      process.stdout.write(prelude + bash(program));
    });
}
