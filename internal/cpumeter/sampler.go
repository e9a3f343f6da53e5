package cpumeter

import (
	"sync"
	"time"
)

// Sampler samples a family every so often, in the background, until it
// is finished or has kept as many samples as it may.
type Sampler struct {
	m     *Meter
	every time.Duration
	max   int
	stop  chan struct{}
	done  chan struct{}

	mu      sync.Mutex
	samples []Sample
}

// StartSampler samples the family of process pid every interval, up to
// max samples; nil when it cannot be metered (no process of mcpoke's, not
// Linux). A nil Sampler finishes with no samples.
func StartSampler(pid int, every time.Duration, max int) *Sampler {
	if pid <= 0 {
		return nil
	}
	m, err := New(pid)
	if err != nil {
		return nil
	}
	s := &Sampler{m: m, every: every, max: max, stop: make(chan struct{}), done: make(chan struct{})}
	go s.run()
	return s
}

func (s *Sampler) run() {
	defer close(s.done)
	t := time.NewTicker(s.every)
	defer t.Stop()
	for {
		sample, err := s.m.Sample()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.samples = append(s.samples, sample)
		full := len(s.samples) >= s.max
		s.mu.Unlock()
		if full {
			return
		}
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
	}
}

// Finish stops sampling and returns the samples.
func (s *Sampler) Finish() []Sample {
	if s == nil {
		return nil
	}
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.samples
}
