package tabstate

import (
	"cmp"
	"slices"
	"strings"
)

// Diagram renders transitions (usually [Transitions]) as a Mermaid
// stateDiagram-v2, without the code fence. The same input gives the same
// text, byte for byte.
//
// To stay readable it draws the phases in two nested boxes: Page holds
// Loading, Committed, Loaded and NoDocument, the phases of the document
// itself; Open holds Page beside DialogOpen, Paused and Crashed; Closed,
// Discarded and BrowserGone stand outside, where a tab ends. A row between
// two boxes is drawn from or to the box that holds its phase, as Mermaid
// draws no edge into another box, so an edge from a box is taken from some
// phase in it: the table says which. All the rows between the same two
// states make one edge, labelled with their event kinds in the order of
// their first rows.
func Diagram(transitions []Transition) string {
	root := diagramTree()
	paths := map[Phase][]int{}
	root.paths(nil, paths)
	edges := map[string]map[[2]int][]Kind{} // box path -> (from, to) child -> kinds
	for _, tr := range transitions {
		pf, pt := paths[tr.From], paths[tr.To]
		if pf == nil || pt == nil || tr.From == tr.To {
			continue
		}
		c := 0
		for c < len(pf) && c < len(pt) && pf[c] == pt[c] {
			c++
		}
		box := pathKey(pf[:c])
		if edges[box] == nil {
			edges[box] = map[[2]int][]Kind{}
		}
		ft := [2]int{pf[c], pt[c]}
		if ks := edges[box][ft]; !slices.Contains(ks, tr.Event) {
			edges[box][ft] = append(ks, tr.Event)
		}
	}
	var b strings.Builder
	b.WriteString("stateDiagram-v2\n")
	root.write(&b, nil, 1, edges)
	return b.String()
}

// diagramNode is a phase, or a box of the diagram that holds phases and boxes.
type diagramNode struct {
	name  string
	phase Phase // 0 for a box
	start bool  // the box starts at its first child
	kids  []diagramNode
}

func diagramTree() diagramNode {
	leaf := func(p Phase) diagramNode { return diagramNode{name: p.String(), phase: p} }
	page := diagramNode{name: "Page", start: true, kids: []diagramNode{
		leaf(PhaseLoading), leaf(PhaseCommitted), leaf(PhaseLoaded), leaf(PhaseNoDocument),
	}}
	open := diagramNode{name: "Open", kids: []diagramNode{
		page, leaf(PhaseDialogOpen), leaf(PhasePaused), leaf(PhaseCrashed),
	}}
	return diagramNode{kids: []diagramNode{
		open, leaf(PhaseClosed), leaf(PhaseDiscarded), leaf(PhaseBrowserGone),
	}}
}

// paths records the child indexes that lead from n to each phase under it.
func (n diagramNode) paths(at []int, out map[Phase][]int) {
	if n.phase != 0 {
		out[n.phase] = append([]int(nil), at...)
		return
	}
	for i, k := range n.kids {
		k.paths(append(at[:len(at):len(at)], i), out)
	}
}

// write writes the boxes under box n, then n's start and edges, indented.
func (n diagramNode) write(b *strings.Builder, at []int, depth int, edges map[string]map[[2]int][]Kind) {
	indent := strings.Repeat("    ", depth)
	for i, k := range n.kids {
		if k.phase != 0 {
			continue
		}
		b.WriteString(indent + "state " + k.name + " {\n")
		k.write(b, append(at[:len(at):len(at)], i), depth+1, edges)
		b.WriteString(indent + "}\n")
	}
	if n.start {
		b.WriteString(indent + "[*] --> " + n.kids[0].name + "\n")
	}
	box := edges[pathKey(at)]
	pairs := make([][2]int, 0, len(box))
	for ft := range box {
		pairs = append(pairs, ft)
	}
	slices.SortFunc(pairs, func(x, y [2]int) int {
		return cmp.Or(cmp.Compare(x[0], y[0]), cmp.Compare(x[1], y[1]))
	})
	for _, ft := range pairs {
		ks := box[ft]
		names := make([]string, len(ks))
		for i, k := range ks {
			names[i] = k.String()
		}
		b.WriteString(indent + n.kids[ft[0]].name + " --> " + n.kids[ft[1]].name + ": " + strings.Join(names, ", ") + "\n")
	}
}

func pathKey(path []int) string {
	var b strings.Builder
	for _, i := range path {
		b.WriteByte(byte('a' + i))
	}
	return b.String()
}

// FrameDiagram renders frame transitions (usually [FrameTransitions]) as a
// Mermaid stateDiagram-v2, without the code fence. The same input gives
// the same text, byte for byte.
//
// It draws an iframe's phases but Detached in one box, Attached. A row
// from Detached, where a frame the tab does not have joins it, is drawn
// from the box's start; the rows to Detached make one edge from the box,
// as Mermaid draws no edge into another box, so that edge is taken from
// some phase in it: the table says which. All the rows between the same
// two states make one edge, labelled with their events in the order of
// their first rows, and the edges come in that order too.
func FrameDiagram(transitions []FrameTransition) string {
	type edge struct{ from, to string }
	var order []edge
	events := map[edge][]string{}
	for _, tr := range transitions {
		if tr.From == tr.To {
			continue
		}
		e := edge{tr.From.String(), tr.To.String()}
		switch {
		case tr.From == FramePhaseDetached:
			e.from = "[*]"
		case tr.To == FramePhaseDetached:
			e.from = "Attached"
		}
		if _, ok := events[e]; !ok {
			order = append(order, e)
		}
		if !slices.Contains(events[e], tr.Event) {
			events[e] = append(events[e], tr.Event)
		}
	}
	var in, out strings.Builder
	for _, e := range order {
		line := e.from + " --> " + e.to + ": " + strings.Join(events[e], ", ") + "\n"
		if e.from == "Attached" {
			out.WriteString("    " + line)
		} else {
			in.WriteString("        " + line)
		}
	}
	return "stateDiagram-v2\n    state Attached {\n" + in.String() + "    }\n" + out.String()
}
