"""The game under chance: a 2-seat rule set with shuffled pickup solved as a Markov chain on
positions by rank (docs/solve.md). solver builds and solves the chain, figures says what it
means for the deck, dataset writes it for the rest of war."""
