import FaultInjector

extension HelpText {
    /// `guard-stress help scenario`: the text scenario format in one screen (the full reference is the
    /// FaultInjector documentation's scenario reference).
    static var scenario: String {
        """
        guard-stress scenario FILE

        A text scenario says what each worker does, one operation per line, in the grammar seed files use. Write
        one from a crash report ("NSRangeException: cannot remove an observer ... because it is not registered",
        from two threads):

          # two threads remove the same observer
          target guard
          worker 0:
            observe c0 o0 k0 [new]
            unobserve c0 o0 k0
          worker 1:
            unobserve c0 o0 k0

        Then explore every interleaving of it (guard-stress explore race.scenario), run it under many schedules
        (guard-stress run --scenario race.scenario --runner controlled), replay it (--record writes its first
        failing run as a seed file for shrink), or explain it. guard-stress scenario FILE checks a scenario,
        naming each mistake by line and column, and prints it with the settings it runs with; given a seed file
        it prints the file's operations as a scenario to edit.

        LINES (indentation is free; # starts a comment, except in a description line)
        \(settingLines)
          worker N:                  starts worker N's operations; workers are numbered 0, 1, ... in order
          OPERATION                  one operation of the current worker (below)

        Settings come before the first worker, each at most once. Slots are inferred: cN is a controller slot (an
        observer with its controller), oN an object slot, and the scenario has one past the highest of each used.

        OPERATIONS
          observe cC oO KEY [OPTIONS] [context N] [then ACTION]
                                     observe KEY of oO through cC with a handler (context 1 to 3: through the
                                     forwarding variant, the observer's own observeValue); KEY may be a Swift key
                                     path: \\.k0 \\.k1 \\.k2 \\.sum \\.peer!.k0 \\.peer?.k0 (no context then)
          unobserve cC oO KEY [context N]      stop observing one key path
          double-unobserve cC oO KEY           unobserve twice in a row
          unobserve-object cC oO               stop observing every key path of oO
          unobserve-all cC                     stop observing everything through cC
          mutate oO k0|k1|k2|gauge             set a key to a fresh value
          link oO oM|nil|stranger              set oO's link (a later slot, nothing, an object without k0)
          announce oO level [around insert items]
                                               announce a change of level by hand (around a to-many insert)
          insert|remove|replace oO items       change the ordered to-many items with indexes
          count cC | is-observing cC oO KEY | observed-key-paths cC oO
                                               ask the controller
          release-observer cC                  drop cC's observer (and its controller); the slot gets new ones
          release-controller cC                drop cC's controller, keep its observer
          release-object oO                    drop the object; the slot gets a new one

        KEYS      k0 k1 k2 (stored), sum (k0 + k1), level (announced by hand), items (to-many), link (the middle
                  object), link.k0, linked (depends on link.k0), gauge (behind its own lock), link.gauge,
                  delegate (weak, never changes), owner (unowned(unsafe): not a key, refused)
        OPTIONS   [] or any of [initial,new,old,prior], e.g. [initial,new]
        ACTIONS   what the handler does on its first notification, after then: none, unobserve-self,
                  unobserve-all, release-controller, mutate oN k0|k1|k2, observe oN KEY, adopt oN

        Exits 0 when FILE is a valid scenario or seed file (and prints it), 2 with the mistake otherwise.
        """
    }

    /// One line per setting, aligned.
    private static var settingLines: String {
        ScenarioFile.settings.map { setting in
            "  " + "\(setting.keyword) \(setting.argument)".padding(toLength: 28, withPad: " ", startingAt: 0) + setting.summary
        }.joined(separator: "\n")
    }
}
