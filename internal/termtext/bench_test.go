package termtext

import (
	"encoding/json"
	"strings"
	"testing"
)

var (
	benchASCII = strings.Repeat("Adds two numbers and returns their sum. ", 25)
	benchClean = strings.Repeat("Addiert zwei Zahlen ✓ – 两个数字相加 ❤\ufe0f. ", 25)
	benchMixed = strings.Repeat("Adds two numbers.\x1b[31m\u202e\u200b ✓ "+tags("hi"), 25)
	benchJSON  = func() []byte {
		js, _ := json.Marshal(map[string]string{"description": benchMixed})
		return js
	}()
	sink string
)

func BenchmarkSanitizeASCII(b *testing.B) {
	b.SetBytes(int64(len(benchASCII)))
	for b.Loop() {
		sink = Line(benchASCII)
	}
}

func BenchmarkSanitizeCleanUnicode(b *testing.B) {
	b.SetBytes(int64(len(benchClean)))
	for b.Loop() {
		sink = Line(benchClean)
	}
}

func BenchmarkSanitizeMixed(b *testing.B) {
	b.SetBytes(int64(len(benchMixed)))
	for b.Loop() {
		sink = Line(benchMixed)
	}
}

func BenchmarkHiddenMixed(b *testing.B) {
	b.SetBytes(int64(len(benchMixed)))
	for b.Loop() {
		_ = Hidden(benchMixed)
	}
}

func BenchmarkEscapeJSONMixed(b *testing.B) {
	b.SetBytes(int64(len(benchJSON)))
	for b.Loop() {
		out, _ := EscapeJSON(benchJSON)
		sink = string(out[:1])
	}
}
