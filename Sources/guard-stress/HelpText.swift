import FaultInjector
import Foundation

/// guard-stress's help pages.
enum HelpText {
    static let overview = """
        guard-stress: hammer KVOGuard's observation guard from many queues, check a strict oracle, write and replay
        seed files.

        USAGE
          guard-stress [run] [options]      run a stress campaign (the default subcommand)
          guard-stress run --runner controlled [--strategy pct|random] [--depth D]
                                            explore schedules one worker at a time; failures replay exactly
          guard-stress replay FILE [--runs K] [--target NAME] [--json OUT] [--junit OUT]
                                            replay a seed file and report whether its failure comes back
          guard-stress shrink FILE [--out FILE] [--runs K] [--in-process]
                                            reduce a failing seed file to a minimal one with the same failure
          guard-stress explain FILE [--html OUT.html] [--in-process]
                                            tell a seed file's failing run as a story (and draw it as a web page)
          guard-stress explore SCENARIO [--target NAME] [--preemptions K] [--jobs N] [--json OUT]
                                            explore every interleaving of a scenario: a proof, or a failing one
          guard-stress scenario FILE        check a text scenario, or write a seed file as one (help scenario: the
                                            format)
          guard-stress mutants [--seeds N] [--budget S] [--filter NAME] [--runner chaos|controlled|both]
                                            run every planted bug against both runners: the kill matrix
          guard-stress bench [options]      measure KVOGuard's costs (build with -c release)
          guard-stress help [run|replay|shrink|explain|explore|scenario|mutants|bench]
                                            show help

        Every command that takes FILE takes a seed file or a text scenario (a few lines a person writes from a crash
        report; guard-stress help scenario). run --scenario FILE runs its operations every round, each round with
        its own schedule; replay --record writes the first failing run of a file that records no failure.

        With no arguments it runs about a minute against the guard on 64 queues (well over a million operations on
        two cores), then shows what the raw runtime would have done with the same operations.

        Two runners: chaos (the default) runs every queue at once on real threads with injected pauses; it is fast
        and finds races, but a failure replays with a rate. controlled runs one worker at a time under a
        cooperative scheduler that switches only at schedule points (GuardCore's named points, every lock acquire
        and release, each operation); a scheduling strategy (random, or PCT with a bug depth) picks who runs next,
        the seed file records the schedule taken, and replay repeats it exactly.

        Rounds (and replay runs) run in child processes, so a crash, a trap or a hang of the system under test is a
        verdict of its round (crash(SIGSEGV), trap, deadlock) with its seed file, and the campaign goes on;
        --in-process runs them in guard-stress itself. --json FILE and --junit FILE write the summary for machines
        (a versioned JSON schema; JUnit XML, one test case per round or run); - for FILE is standard output (the
        text then goes to standard error). They are marked "incomplete" as the command starts and say "interrupted"
        if SIGTERM or SIGINT stops it (the process then ends by that signal), so a report of an earlier run never
        stays behind. The last line, RESULT: ..., is printed after the reports and names the exit code.

        No output destroys a file: a report (--json, --junit, bench --json, explain --html) replaces only an earlier
        report of the same kind or an empty file; any other file at its path (a seed file, a binary, a source file)
        is a usage error before anything runs, unless --force. If such a file appears while the command runs, it is
        kept and the report is written beside it (NAME.2.EXT), saying where.

        EXIT CODES
          run, replay, explain
            0  the oracle held
            1  the oracle was violated (a replay exits 1 whenever a run violated it: RESULT: REPRODUCED when the
               recorded failure came back, FAILED DIFFERENTLY when only other failures did)
            2  bad usage or a bad input file (run and replay: or no child process could be started for the rounds)
          shrink
            0  the shrunk file was written, and replaying it reproduces the same failure
            1  the file's failure did not reproduce (nothing to shrink, no file written), or the shrunk file did not
               reproduce it on every verification replay (written as NAME.unverified-shrunk.json)
            2  bad usage or a bad input file
          mutants
            0  every planted bug was caught by at least one runner, and the unmodified guard showed no violation
            1  a planted bug survived both runners, or the guard showed a violation
            2  bad usage (or a report file could not be written)
          explore
            0  complete: no interleaving broke the oracle (or none within --preemptions K)
            1  an interleaving broke the oracle (its seed file was written)
            2  bad usage or a bad input file
            3  not a proof: the exploration could not be completed
          bench: 0 after measuring, 1 if its harness figures saw an oracle violation, 2 bad usage
        """

    static var run: String { runOverview + "\n\n" + runOptions }

    static let replay = """
        guard-stress replay FILE [--runs K] [--target NAME] [--record [--out FILE]] [--json OUT] [--junit OUT]
                                 [--in-process]

        Re-runs the scenario of FILE, a seed file or a text scenario (its written operations, or the ones its seed regenerates) K times
        (default 3) with the file's runner and reports how often the oracle was violated and how often with the
        file's own signature. The chaos runner replays operations, not thread interleavings, so a race comes back
        with a rate. A controlled file replays exactly: every run follows the recorded schedule step for step and
        must record the history whose digest the file records, and the replay says so ("exact replay: ..."); if a
        run stops matching, it names the step where the schedule diverged. Exactness is claimed only when both were
        compared: a controlled file without its recorded schedule (the strategy and seed regenerate one) or without
        the schedule's history digest says "exactness NOT CHECKED" and why, as does a replay with --target (the JSON
        report then has "exactnessNotChecked" and no "exactRuns"); the exit code still says whether the failure
        reproduced. --target replays the same operations against another system (guard, raw, token, or nsobject on
        Apple platforms); a recorded schedule belongs to its own target, so then the file's strategy and seed
        regenerate one.
        Each run happens in a child process (with SWIFT_DETERMINISTIC_HASHING=1), so a run that crashes, traps or
        hangs is reported as crash(SIGSEGV), trap or deadlock and the next run starts fresh; with --in-process
        guard-stress runs them itself and restarts itself with SWIFT_DETERMINISTIC_HASHING=1 when it is not set. A
        file whose failure is "unfinished" was written before its round ran and the round never finished: replay
        it to see what happened. A text scenario (or a seed file) that records no failure has nothing to reproduce:
        its result says VIOLATED or PASSED; --record writes its first failing run (operations, failure and, for a
        controlled run, the schedule it took) to a seed file that shrink takes.

        OPTIONS
          --runs K             runs (default 3)
          --record             write the first run that violated the oracle as a seed file, beside FILE as
                               NAME.recorded.json (NAME without .json or .scenario), or to --out
          --out FILE           with --record: where the seed file goes (an existing file only with --force)
          --target NAME        replay against another system (guard, raw, token, or nsobject on Apple platforms)
          --json FILE          write the outcome as JSON (schema "kvoguard-stress-report" version 1, command replay;
                               result reproduced, other-failure or not-reproduced); - is standard output
          --junit FILE         write JUnit XML: one test case per run, a <failure> per run that violated the oracle
          --force              let --json and --junit replace a file that is not an earlier report of theirs, and
                               --out an existing file (never FILE itself)
          --in-process         run in guard-stress itself
          --stall-timeout SECONDS
                               chaos runs: no finished operation for this long is a deadlock (default 3)

        Exits 1 if any run violated the oracle, 0 if none did, 2 if FILE is missing, a directory, unreadable,
        truncated, of another version, lacks its operations, or makes no sense. The result says REPRODUCED only when
        a run failed with the file's recorded signature, FAILED DIFFERENTLY when runs failed otherwise.
        """

    static let shrink = """
        guard-stress shrink FILE [--out FILE] [--runs K] [--max-candidates N] [--max-seconds S] [--verify N]
                                 [--force] [--quiet] [--in-process]

        Reduces the failing seed file FILE to a minimal one whose run fails with exactly the same failure signature:
        fewer workers, operations, controllers, objects and key paths and, for a controlled file, a schedule with
        fewer steps and preemptions. The passes, repeated while any makes progress: delta debugging (ddmin) over the
        workers and over each worker's operations, dropping workers left without operations, simpler operations (no
        handler action, fewer options), merging slots and keys into one another, renumbering slots from 0; then, for a
        controlled file, ddmin over the schedule's preemptions (the rest of the run goes on without preemption).
        Progress goes to standard error, one line per step that made the file smaller.

        Controlled files shrink exactly: each candidate runs with the file's strategy and seed and, if that passes,
        guided by the smallest failing schedule so far; a controlled run is deterministic, so one run decides. The
        schedule of every kept candidate is recorded, and the written file replays it exactly.

        Chaos files shrink by re-running each candidate up to K times (--runs, default 10): a candidate counts as
        failing at its first run with the signature, and as passing after K runs without it. Every kept candidate
        really failed; a race that shows in a fraction p of runs is wrongly kept out with probability (1-p)^K
        (K = 10: 0.1% at p = 0.5, 35% at p = 0.1), which only leaves the result less small. Raise K for rare races.

        The result is written to --out FILE, by default FILE's name with .shrunk.json (never over the input; an
        existing --out only with --force), then replayed --verify N times (default 20) to confirm it: a controlled
        file must reproduce the signature exactly every time. Explain it with guard-stress explain.

        OPTIONS
          --out FILE           where to write the shrunk file (default: beside FILE, NAME.shrunk.json); a file
                               whose verification failed goes to NAME.unverified-shrunk.json (OUT.unverified.json)
                               instead, with "verified": false, and shrink exits 1
          --runs K             chaos files: runs per candidate, 1 to 1000 (default 10)
          --max-candidates N   stop after trying N candidates (default 5000); the smallest failing file found is kept
          --max-seconds S      stop after S seconds (default 300)
          --verify N           replays of the shrunk file to confirm it (default 20; 0 skips)
          --force              overwrite an existing --out file
          --quiet              print only the sizes, the verification and where the file went (no progress lines,
                               no candidate policy, no operations)
          --in-process         run candidates in guard-stress itself (a crash of the target ends the shrinker)
          --stall-timeout SECONDS, --rounds-per-process N
                               as for run (child processes only)

        ISOLATION. Every candidate run, and every verification replay, happens in a child process (guard-stress
        itself, with SWIFT_DETERMINISTIC_HASHING=1; controlled candidates share a process, up to 500 each). A
        candidate that crashes, traps or hangs is a verdict like any other (crash(SIGSEGV), trap, deadlock), so a
        file whose failure is a crash shrinks to a smaller file that still crashes. A crashed candidate's schedule
        never comes back: one run with the file's strategy and seed still counts (they regenerate it), one guided
        by an earlier schedule does not.

        Exits 0 when the shrunk file was written and reproduces the failure on every verification replay, 1 when the
        file's failure did not reproduce (nothing is written) or the shrunk file did not reproduce it every time, 2
        if FILE is missing, truncated, of another version, makes no sense, records no failure, or records a round that
        never finished (a .running.json file, failure "unfinished": replay it to get its verdict), or if the output
        cannot be written (checked before shrinking).
        """

    static let explain = """
        guard-stress explain FILE [--html OUT.html] [--force] [--full] [--width N] [--attempts N] [--in-process]

        Replays FILE (a seed file or a text scenario) once and prints the run as a story: one column per worker,
        one row per step in which something happened (steps with only locks and schedule points are left out; long
        quiet stretches are marked), each operation with its result (#1, #2, ... in the order they began), each
        notification (»), each misuse that reached the runtime (✗), lock waits (‖) and preemptions in the middle of
        an operation (⇥). Each oracle violation is marked (◄ ✗1) on the row where it became inevitable: the
        notification it names, else the latest result of an operation it names, else the first misuse of its kind,
        else the end of the run; below the table the violations are spelled out with the same labels, and the
        instances they name are called by their slots, as the operations call them (c0, o1; c0′ for the second
        controller slot c0 held). Shrink a file first (guard-stress shrink) for a story that fits a screen.

        A controlled file is replayed exactly: the story is the recorded run itself (it says so, or where the replay
        stopped matching). A chaos file cannot be: it is run until its failure shows (at most --attempts times,
        default 20), and that run's history is told in wall-clock order, saying it is one replay, not necessarily
        the original.

        OPTIONS
          --html OUT.html   also write the story as one self-contained web page (inline CSS and SVG, no script, no
                            network), as wide as the window: swimlanes per worker with each operation's text and
                            result, registrations as bars over their lifetimes (on a system without the guard, such
                            as raw, until the runtime lets go of them: releasing the observer does not), notifications
                            as marks, the violations highlighted, each linked from the list to its step in the
                            picture and its row in the text; it replaces only an earlier explain page (or an empty
                            file)
          --force           let --html replace any other file (never FILE itself)
          --full            print every row (a long story otherwise keeps its start, the rows around each violation
                            and its end)
          --width N         the width the table aims for (default 120)
          --attempts N      chaos files: the most replays made to see the recorded failure (default 20)
          --in-process      skip the probe run in a child process (a crash of the target ends guard-stress)

        ISOLATION. The file is first replayed once in a child process. If that run crashes, traps or hangs, no
        step-by-step story can be recorded (the trace dies with the process): explain prints the verdict
        (crash(SIGSEGV), trap, deadlock), each worker's operations and the violation, and exits 1. Otherwise the
        story is recorded by replaying the file here (a chaos file's own replays are not probed one by one).

        Exits 1 if the explained run violated the oracle (the usual case), 0 if it held, 2 if FILE is missing,
        truncated, of another version, or makes no sense, or the page cannot be written.
        """

    static let bench = """
        guard-stress bench [--quick] [--filter NAME] [--json FILE] [--force] [--list]

        Measures what KVOGuard costs and prints a table. Each figure is the median of several repetitions after a
        warm-up, measured in this process beside the baseline named with it (alternating with it, round by round);
        its ratio is value ÷ baseline. Memory growth is one long run, not a median. Read the ratios: they hold on a
        noisy machine, the nanoseconds do not.

        Measure the release build; a debug build's numbers mean nothing:

          swift run -c release guard-stress bench

        OPTIONS
          --quick          a short run (a few seconds) with fewer repetitions and shorter loops, for CI; same figures
          --filter NAME    only the figures whose name contains NAME or matches it as a regular expression (their
                           baselines are measured too); a NAME that is not a valid regular expression selects by
                           substring only, and a filter that selects nothing is a usage error saying which
          --json FILE      also write the figures to FILE as a JSON list of {"name", "value", "unit"} plus
                           "baseline" and "ratio" where the figure has a baseline; it replaces only an earlier such
                           list (or an empty file)
          --force          let --json replace any other file
          --list           list the figures (with --filter: the selected ones) and what each measures; measure nothing

        FIGURES
          1 unobserved-{set,get}.*
                                  a set and a read of an @Observed property nobody observes vs a non-inlined
                                  plain setter and getter
          2 notify.floor, notify.{raw,guard}.1-observer
                                  one observer, .new/.old: raw runtime vs a floor (lock, lookup, closure call),
                                  guard vs raw
          3 notify.*-observers    10, 100, 1,000 observers of one key, and the cost per notification
          4 registration.*-pair.* observe+unobserve pair, guard vs raw, on an unobserved and an observed object;
                                  a token made with a Swift key path and invalidated, vs the raw pair;
            registration.*-screen a new controller binds 12 observers and is released, vs the same raw
          5 registration.*-elsewhere
                                  observe / unobserve with 10, 1,000, 100,000 registrations on other objects
          6 throughput.*          sets per second from 1, 2, 8, 64 queues: own observed object, own unobserved
                                  object, one shared object under a lock that spins before it sleeps, and
                                  under a plain mutex (which convoys with many more threads than cores); reads
                                  per second, each queue reading its own object
          7 memory.*              heap bytes per registration; resident growth over 10^7 observe/unobserve cycles
          8 harness.*             chaos-runner operations per second with the full oracle
          9 explore.*             explore's executions per second against the guard, 1 job and 2 jobs

        Exits 0 after measuring, 1 if the harness group's oracle was violated, 2 for bad usage.
        """

    /// One line per profile, indented for the option list.
    static var profileLines: String {
        ScenarioProfile.allCases.map { profile in
            "                         " + profile.rawValue.padding(toLength: 14, withPad: " ", startingAt: 0)
                + profile.summary
        }.joined(separator: "\n")
    }

    /// The operation names `--mix` takes, wrapped for the option list.
    static var mixNames: String {
        var lines: [String] = []
        var line = ""
        for name in OperationKind.allCases.map(\.rawValue) {
            let addition = (line.isEmpty ? "" : ", ") + name
            if line.count + addition.count > 110 - 31, !line.isEmpty {
                lines.append(line + ",")
                line = name
            } else {
                line += addition
            }
        }
        lines.append(line)
        return lines.joined(separator: "\n" + String(repeating: " ", count: 23))
    }

    static let mutants = """
        guard-stress mutants [options]

        The planted-bug kill matrix: proves the harness can see. Each planted bug (a deliberately broken observation
        system: FaultInjector's PlantedBugs, never in the shipped library) runs against each runner, --seeds
        campaigns per runner, each stopping at its first failure or after --budget seconds, with every round in a
        child process (a crash or a hang of a mutant is a finding: crash(SIGSEGV), trap, deadlock). The first seed
        file written per mutant and runner is replayed (--replays runs, in child processes; a controlled file must
        replay exactly). Then the unmodified guard runs the same way and must show no violation.

        The table: per mutant × runner, caught or not, seeds caught / N, median and worst seconds to the first
        detection (process start included), whether the seed file replays, and the oracle checks that fired.

        OPTIONS
          --seeds N             campaigns per mutant and runner (default 3), seeded --seed, --seed + 1, ...
          --seed S              the first campaign seed (default 1)
          --budget SECONDS      how long each campaign may look before the seed counts as not caught (default 10)
          --filter NAME         only the planted bugs whose name contains NAME
          --runner R            chaos, controlled (PCT depth 3) or both (default)
          --replays K           replay runs of each written seed file (default 3)
          --no-guard            leave out the unmodified guard's rows
          --out DIR             where seed files go (default mutant-seeds, one directory per mutant and runner)
          --json FILE           the kill matrix as JSON (the report's "mutants" section)
          --junit FILE          JUnit XML, one test case per mutant × runner (and per guard row)
          --force               let --json and --junit replace a file that is not an earlier report of theirs
          --in-process          run rounds in guard-stress itself (a crashing or hanging mutant then ends it)
          --stall-timeout S, --rounds-per-process N   as for run

        PLANTED BUGS
        \(PlantedBug.allCases.map { "  \($0.rawValue.padding(toLength: 36, withPad: " ", startingAt: 0))\($0.summary)" }.joined(separator: "\n"))

        EXIT CODES
          0  every planted bug was caught by at least one runner, and the guard showed no violation
          1  a planted bug survived both runners, or the guard showed a violation
          2  bad usage (or a report file could not be written)
        """

    static let explore = """
        guard-stress explore SCENARIO [--target NAME] [--preemptions K] [--jobs N] [--out DIR] [--json FILE|-]
                                      [--max-executions N] [--no-reduction] [--no-shrink] [--every-failure]
                                      [--quiet] [--force]
        guard-stress explore --proof pairs|triples [--shard I/N] [--target NAME] [--jobs N] [--json FILE|-]

        Runs every interleaving of a scenario's workers, each class of equivalent interleavings once, and answers:
          explored 20 classes in 20 executions: complete, 0 violations
        (a proof for this scenario and target), or the first failing interleaving, written as a seed file that
        replays exactly (guard-stress replay) and, shrunk, ready for guard-stress explain. SCENARIO is a text
        scenario (guard-stress help scenario) or a seed file: its operations are the scenario (every file
        guard-stress writes is one).

        Each execution is a controlled run that follows a prefix of scheduling decisions, then continues the
        running worker. The scheduler records what every step touched: the locks it took, the lock-free state
        GuardCore reads and writes (a registration's state, the announced-keys mask, a table's publication, weak
        references loaded), and the objects whose last reference it may drop. Two steps that touch one object, one
        of them writing it, are dependent; interleavings that differ only in the order of independent steps are
        one class. After each execution the races (dependent steps of two workers with nothing between them) add
        the other order to explore (dynamic partial-order reduction with source sets and sleep sets).

        Every re-execution checks it repeats its prefix (the same decisions, workers able to run, and objects
        touched); a divergence, a run past its step limit or a worker blocked outside the scheduler's control ends
        the exploration with NOT A PROOF and why, never with "complete". With three or more workers the reduction
        is not checked against running every interleaving, so a passing answer there is thorough evidence, not a
        proof (the output says so).

        OPTIONS
          --target NAME          explore against this target instead of the file's own
          --preemptions K        only interleavings that preempt a running worker at most K times: the answer is
                                 then "complete up to K preemptions", which is not a proof
          --no-reduction         run every interleaving, depth first (slow; for checking the reduction)
          --jobs N               run in N child processes at once (default: the processors available): one
                                 scenario's subtrees of interleavings (the states near the start are explored
                                 here, one execution at a time), or, for --proof, whole scenarios; 1 runs in
                                 this process
          --out DIR              where the seed files of a failing interleaving go (default explore-seeds)
          --no-shrink            write the failing interleaving's seed file without shrinking it
          --every-failure        explore on past the first failing interleaving: count the failing and passing
                                 classes, and write a seed file for the first class of each distinct failure
          --max-executions N     stop after N executions (the answer is then not a proof); with several jobs
                                 each subtree in flight may use what is left, so a few more may run
          --json FILE            also write the answer as a JSON report (format kvoguard-exploration-report);
                                 - writes it to standard output (the text then goes to standard error)
          --proof NAME           explore every scenario of a named suite against the guard (or --target):
                                   pairs    2 workers, up to 2 operations each from observe [], observe
                                            [initial,new], unobserve, mutate, release-observer, unobserve-all
                                            on c0 and o0 (903 scenarios; CI runs it)
                                   triples  2 workers, up to 3 operations each from observe [initial,new],
                                            unobserve, mutate, release-observer (3,570 scenarios; the long run:
                                            about 35 processor-minutes; split it with --shard)
          --shard I/N          explore only part I of N of the suite (every Nth scenario from the Ith), to split a
                               long run over machines: the run is a proof when every part answers complete

        EXIT CODES
          0  complete (or complete up to K preemptions): no interleaving broke the oracle
          1  an interleaving broke the oracle (its seed file was written)
          2  bad usage or a bad input file
          3  not a proof: the exploration could not be completed (the reason is printed)
        """

    static func topic(_ name: String) -> String? {
        switch name {
        case "run": return run
        case "replay": return replay
        case "shrink": return shrink
        case "explain": return explain
        case "scenario": return scenario
        case "bench": return bench
        case "mutants": return mutants
        case "explore": return explore
        default: return nil
        }
    }
}
