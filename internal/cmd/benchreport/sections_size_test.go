package main

import (
	"strings"
	"testing"
)

func TestSizeNote(t *testing.T) {
	tests := []struct {
		name, line string
		want       []string // empty: no note
	}{
		{
			name: "every figure",
			line: "BenchmarkChromedpBinarySize 1 800000 growth-bytes 256000 code-growth-bytes 39000 slog-code-bytes\n",
			want: []string{"Machine code is 32% of the growth", "log/slog (39000 bytes of the machine code"},
		},
		{
			name: "no code figures",
			line: "BenchmarkChromedpBinarySize 1 11653329 plain-bytes 11999586 guarded-bytes 346257 growth-bytes\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := parse(strings.NewReader(tt.line))
			if err != nil {
				t.Fatal(err)
			}
			got := sizeNote(res)
			if len(tt.want) == 0 && got != "" {
				t.Errorf("sizeNote() = %q; want no note", got)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("sizeNote() = %q; want it to hold %q", got, w)
				}
			}
		})
	}
}
