package diagram

import "fmt"

// collapse keeps runs of progress readable: a run of more than maxRun
// progress arrows (consecutive, all ignored or none) keeps its first and
// last arrow and becomes one counted arrow between them, with the range
// of its values and times. Nothing is dropped: counts add up.
func collapse(arrows []Arrow, maxRun int) []Arrow {
	var out []Arrow
	for i := 0; i < len(arrows); {
		j := i
		for j < len(arrows) && arrows[j].Kind == KindProgress && arrows[j].Ignored == arrows[i].Ignored {
			j++
		}
		if j-i <= maxRun {
			out = append(out, arrows[i:max(j, i+1)]...)
			i = max(j, i+1)
			continue
		}
		out = append(out, arrows[i], run(arrows[i+1:j-1]), arrows[j-1])
		i = j
	}
	return out
}

// run is one arrow for a run of progress.
func run(rs []Arrow) Arrow {
	first, last := rs[0], rs[len(rs)-1]
	a := Arrow{From: first.From, Kind: KindProgress, At: first.At, Until: last.At, Count: len(rs),
		Ignored: first.Ignored, AfterCancel: first.AfterCancel}
	for _, r := range rs {
		a.Lines = append(a.Lines, r.Lines...)
	}
	a.Label = fmt.Sprintf("progress ×%d", len(rs))
	if first.value != "" && last.value != "" {
		a.Label += ": " + first.value + " … " + last.value
	}
	if a.Ignored {
		a.Label += " · ignored (cancel +" + Human(first.AfterCancel) + " … +" + Human(last.AfterCancel) + ")"
	}
	return a
}
