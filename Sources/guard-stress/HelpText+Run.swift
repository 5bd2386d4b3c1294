import FaultInjector

/// `guard-stress run --help`: the longest help text, in parts.
extension HelpText {
    /// What a campaign does, its runners, isolation and jobs.
    static var runOverview: String {
        """
        guard-stress run [options]

        Runs rounds of fresh scenarios (each drawn from the campaign seed) until the time or operation budget is
        used up. Each round: --queues Dispatch queues released together from a barrier, each performing its own
        operation stream (observe with a handler, with .initial, through the forwarding variant with a context, or
        through a Swift key path; unobserve in each of those forms, double unobserve, unobserve an object, unobserve
        all; set stored keys, set the middle object of link.k0 to another object, nil or an object without k0,
        announce level by hand (sometimes around a to-many change), insert / remove / replace items with indexes;
        query registrationCount, isObserving and observedKeyPaths; release observer / controller / object; and
        handler actions such as unobserving, releasing the controller or adopting an object inside the callback) with
        injected yields, spins and sleeps; then the oracle checks the recorded history (results, queries and counts,
        diagnostics, every notification). Every failing round is written to --out as a seed file.

        With --runner controlled each round is one schedule: the workers run one at a time and switch only at
        schedule points, as the strategy decides. A deadlock is reported at once (naming each worker, its operation
        and the lock it waits for), a worker blocked on something the scheduler cannot see (a semaphore) after two
        seconds, and a run longer than --max-steps as step-limit. The summary reports schedules and steps per
        second. Seed files record the strategy, depth, step limit and the schedule taken; replay follows it exactly.

        ISOLATION. Each round runs in a child process (guard-stress itself, with SWIFT_DETERMINISTIC_HASHING=1): a
        fresh process every round for the chaos runner; for the controlled runner, whose rounds take milliseconds,
        one process serves up to 500 rounds. A round whose process dies is a verdict: crash(SIGSEGV) (or another
        signal), trap (a Swift runtime trap: fatalError, precondition, force unwrap, overflow; SIGILL or SIGTRAP),
        deadlock (no progress for --stall-timeout seconds in a chaos round; every worker blocked, or one blocked
        outside the scheduler for two seconds, in a controlled round; or no answer at all long after that, when
        the process is killed). Its seed file is written (with the process's standard error beside it, .log), it
        is listed as it happens, a fresh process takes over, and the summary prints at the end. Each round's seed
        file is also written before the round runs (seed-...running.json, failure "unfinished", removed after),
        so even a crash of guard-stress itself leaves the round to replay. Isolation costs about a millisecond per
        chaos round and a tenth of one per controlled round (the summary says how much). With --in-process a crash
        of the system under test ends guard-stress, as it would end an app; controlled runs then restart
        guard-stress with SWIFT_DETERMINISTIC_HASHING=1 so their seed files replay in another process.

        JOBS. --jobs N rounds run at once, each in its own child process (default: one per core this process may
        use, or fewer when that many rounds would not fit in memory: a round's process holds its record until the
        oracle has judged it, about 2.4 KB per operation, so a 4096-queue round needs about 10 GB; the first line
        says so), so one round's oracle overlaps the next rounds' workers. The campaign is the same whatever N is: the
        same rounds with the same seeds and sizes (a controlled round: the same schedule and verdict), listed,
        reported and written as seed files in round order. No round starts after --duration (running ones finish);
        --stop-at-first-failure stops at the first failing round in round order, as one job would (rounds after it
        that were running are stopped and left out). SIGTERM or Ctrl-C ends every child process. With --in-process
        rounds run one at a time.
        """
    }

    /// Every option of `run`.
    static var runOptions: String {
        """
        OPTIONS
          --seed N             campaign seed (decimal or 0x hex); default: random, printed
          --profile NAME       the scenario shape (default mixed; the sizes below are the mixed profile's):
        \(profileLines)
          --scenario FILE      the same operations every round: a text scenario or a seed file's (its target and
                               runner unless --target and --runner say otherwise), each round with its own seed,
                               so its own schedule; replaces --profile, --mix, --queues, --ops-per-queue, --objects
                               and --controllers
          --mix NAME=W,...     the operation weights, replacing the profile's (operations not named get 0); the
                               names: \(mixNames)
          --runner chaos|controlled
                               how rounds run (default chaos; see above)
          --strategy pct|random
                               controlled runner: who runs next (default pct): random picks uniformly among the
                               runnable workers at every step; pct (probabilistic concurrency testing) gives workers
                               random priorities and lowers the running one at depth-1 random steps
          --depth D            pct: the bug depth to aim for, 1 to 100 (default 3)
          --max-steps N        controlled runner: schedule steps a round may take, at least its operations (default
                               1000000, or 100 per operation for rounds of more than 10000 operations)
          --queues N           worker queues per round, 1 to 4096 (default 64; controlled: 4); Dispatch runs at most
                               about 255 at once on Linux, and the rest start as threads come free
          --ops N              stop after rounds that draw N operations in all (default: no limit, time decides);
                               the last round is cut to fit (fewer operations per queue, then fewer queues), so
                               the rounds draw fewer than --ops-per-queue more than N; operations that observation
                               handlers perform (then unobserve-self, then adopt, ...) come on top
          --ops-per-queue N    operations per queue per round (default 1000; controlled: 25)
          --duration SECONDS   stop starting rounds after this long (default 50)
          --progress SECONDS   when standard error is not a terminal (a CI log): a progress line this often
                               (default 30; a terminal gets one line rewritten in place)
          --target NAME        system under test (default guard): guard, raw (GuardCore's runtime without the
                               guard), token (the ObservationToken API), nsobject (the guard in front of
                               Foundation's own KVO; Apple platforms only)
          --objects N          shared objects per round (default 6; controlled: 3), up to 16384
          --controllers N      shared controllers per round (default 8; controlled: 3)
          --out DIR            where seed files of failing rounds go (default ./stress-seeds)
          --max-seed-files N   write at most N seed files (default 10), plus one for each failure signature not
                               seen before; the other failing rounds are counted
          --no-faults          do not inject yields, spins or sleeps (the controlled runner injects none)
          --no-compare         skip the raw-runtime comparison of a guard campaign (round 1's operations against
                               the raw runtime, in a job beside the first rounds, or after the last with one job)
          --stop-at-first-failure
                               end the campaign at the first failing round
          --json FILE          write the summary as JSON (schema "kvoguard-stress-report" version 1: target, runner,
                               seeds, rounds, operations, violations by kind, crash signals, failing rounds with
                               their signatures and seed files); - is standard output
          --junit FILE         write JUnit XML: one test case per round, a <failure> per failing round
                               (neither report may be inside --out named seed-..., where the seed files go)
          --force              let --json and --junit replace a file that is not an earlier report of theirs
          --jobs N             rounds at once, each in its own child process, 1 to 1024 (default: the cores this
                               process may use, fewer if memory holds fewer rounds; 1 with --in-process)
          --in-process         run rounds in guard-stress itself (a crash of the target ends the campaign)
          --stall-timeout SECONDS
                               chaos rounds: no finished operation for this long is a deadlock (default 3,
                               at least 0.1)
          --rounds-per-process N
                               rounds one child process serves (default: chaos 1, controlled 500)
        """
    }
}
