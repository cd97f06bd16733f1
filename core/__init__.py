"""The ground floor every engine and the door stand on: errors, the engine contract and registry, events and
their readers, the match table and its JSON form, counters, units. It imports nothing else of cepkit."""
