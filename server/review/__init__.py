"""The review of a ranked finish: the pace model of the fastest plausible person
(:mod:`.pace`), the review's score from solver agreement, detours, undos and pace
(:mod:`.scoring`, pure), a finish's evidence against more than one reference
(:mod:`.evidence`), and the reviews run in the solver's processes, off the loop
(:mod:`.reviewer`)."""
