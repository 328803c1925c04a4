// autocannon ships no types; this is the part of its API the benchmarks use.
declare module 'autocannon' {
  interface Histogram { average: number; mean: number; p50: number; p99: number; total: number }
  interface Result { requests: Histogram; latency: Histogram; throughput: Histogram; non2xx: number; errors: number; timeouts: number }
  interface Request { path?: string; method?: string; headers?: Record<string, string>; body?: string }
  interface Options { url: string; connections?: number; duration?: number; method?: string; headers?: Record<string, string>; body?: string; requests?: Request[] }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
