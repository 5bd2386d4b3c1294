/// guard-stress's help pages.
enum HelpText {
    static let overview = """
        guard-stress: hammer KVOGuard's observation guard from many queues, check a strict oracle, write and replay
        seed files.

        USAGE
          guard-stress [run] [options]      run a stress campaign (the default subcommand)
          guard-stress replay FILE [--runs K] [--target NAME]
                                            replay a seed file and report whether its failure comes back
          guard-stress help [run|replay]    show help

        With no arguments it runs about a minute against the guard on 64 queues (well over a million operations on
        two cores), then shows what the raw runtime would have done with the same operations.

        EXIT CODES (every subcommand)
          0  the oracle held
          1  the oracle was violated (a replay that reproduces its failure exits 1)
          2  bad usage or a bad input file
        """

    static let run = """
        guard-stress run [options]

        Runs rounds of fresh scenarios (each drawn from the campaign seed) until the time or operation budget is
        used up. Each round: --queues Dispatch queues released together from a barrier, each performing its own
        operation stream (observe, observe with .initial, unobserve, double unobserve, unobserve an object,
        unobserve all, mutate, release observer / controller / object, and handler actions such as unobserving or
        releasing the controller inside the callback) with injected yields, spins and sleeps; then the oracle checks
        the recorded history. Every failing round is written to --out as a seed file.

        OPTIONS
          --seed N             campaign seed (decimal or 0x hex); default: random, printed
          --queues N           worker queues per round (default 64; use more than the machine's cores)
          --ops N              stop after about N operations in all (default: no limit, time decides)
          --ops-per-queue N    operations per queue per round (default 1000)
          --duration SECONDS   stop starting rounds after this long (default 50)
          --target NAME        system under test (default guard): guard, raw (GuardCore's runtime without the
                               guard), token (the ObservationToken API), nsobject (the guard in front of
                               Foundation's own KVO; Apple platforms only)
          --objects N          shared objects per round (default 6)
          --controllers N      shared controllers per round (default 8)
          --out DIR            where seed files of failing rounds go (default ./stress-seeds)
          --max-seed-files N   write at most N seed files (default 10), plus one for each failure signature not
                               seen before; the other failing rounds are counted
          --no-faults          do not inject yields, spins or sleeps
          --no-compare         skip the raw-runtime comparison after a guard campaign
          --stop-at-first-failure
                               end the campaign at the first failing round
        """

    static let replay = """
        guard-stress replay FILE [--runs K] [--target NAME]

        Re-runs the scenario of seed file FILE (its written operations, or the ones its seed regenerates) K times
        (default 3) and reports how often the oracle was violated and how often with the file's own signature.
        The chaos runner replays operations, not thread interleavings, so a race comes back with a rate.
        --target replays the same operations against another system (guard, raw, token, or nsobject on Apple
        platforms).

        Exits 1 if any run violated the oracle (the failure reproduced), 0 if none did, 2 if FILE is missing,
        truncated, of another version, or makes no sense.
        """

    static func topic(_ name: String) -> String? {
        switch name {
        case "run": return run
        case "replay": return replay
        default: return nil
        }
    }
}
