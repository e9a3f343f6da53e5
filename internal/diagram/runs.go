package diagram

import "fmt"

// collapse keeps runs of progress readable: a run of more than maxRun
// progress notifications (consecutive, all ignored or none) keeps its
// first and last arrow and becomes one counted arrow between them, with
// the range of its values and times. Nothing is dropped: counts add up.
func collapse(arrows []Arrow, maxRun int) []Arrow {
	var out []Arrow
	for i := 0; i < len(arrows); {
		j, count := i, 0
		for j < len(arrows) && arrows[j].Kind == KindProgress && arrows[j].Ignored == arrows[i].Ignored {
			count += arrows[j].Count
			j++
		}
		if count <= maxRun || j-i < 3 {
			out = append(out, arrows[i:max(j, i+1)]...)
			i = max(j, i+1)
			continue
		}
		out = append(out, arrows[i], run(arrows[i+1:j-1]), arrows[j-1])
		i = j
	}
	return out
}

// run is one arrow for a run of progress, itself made of single
// notifications or runs.
func run(rs []Arrow) Arrow {
	first, last := rs[0], rs[len(rs)-1]
	a := Arrow{From: first.From, Kind: KindProgress, At: first.At, Until: last.Until,
		Ignored: first.Ignored, PassedOn: first.PassedOn, AfterCancel: first.AfterCancel, afterTo: last.afterTo,
		value: first.value, valueTo: last.valueTo}
	for _, r := range rs {
		a.Count += r.Count
		a.Lines = append(a.Lines, r.Lines...)
	}
	a.Label = fmt.Sprintf("progress ×%d", a.Count)
	if a.value != "" && a.valueTo != "" {
		a.Label += ": " + a.value + " … " + a.valueTo
	}
	if a.Ignored {
		a.Label += " · " + ignoredWord(a) + " (cancel +" + Human(a.AfterCancel) + " … +" + Human(a.afterTo) + ")"
	}
	return a
}

// foldAt is how long a run of progress grows, while it is read, before
// its middle is folded into one run arrow: a flood followed for minutes
// keeps a few arrows, not one per notification. collapse draws it the
// same, folded or not.
const foldAt = 256

// fold folds the run of progress that ends the arrows, if it grew past
// b.foldAt, keeping its first and last arrow.
func (b *builder) fold() {
	e := len(b.arrows)
	last := &b.arrows[e-1]
	if last.Kind != KindProgress {
		return
	}
	s := e - 1
	for s > 0 && b.arrows[s-1].Kind == KindProgress && b.arrows[s-1].Ignored == last.Ignored {
		s--
	}
	if e-s <= b.foldAt {
		return
	}
	folded := run(b.arrows[s+1 : e-1])
	kept := b.arrows[e-1]
	b.arrows = append(b.arrows[:s+1], folded, kept)
	clear(b.arrows[len(b.arrows):e])
}
