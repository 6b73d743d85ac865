# make test: the tests. make demo: the four outcomes on a real tab.
# make lint: gofmt, go vet, staticcheck, the API check and adopt-versions
# (adopting a module moves none of a program's requirements). make api:
# record the exported API.
# make test-all: make test and make test-more, the runs kept out of it (the
# newest rod, and the chromedp releases chromedp015guard pins besides its
# go.mod's). CI (.ci/run) runs both, then make fuzz and make bench-smoke.
GO ?= go
FUZZTIME ?= 30s
# Nested modules (chromedpguard, chromedp015guard, otelguard, examples with
# their own go.mod, and internal/cmd/benchplot, which keeps its plotting
# library out of the root module's requirements) are tested on their own.
MODULES := chromedpguard chromedp015guard otelguard $(patsubst %/go.mod,%,$(wildcard examples/*/go.mod)) internal/cmd/benchplot
# Modules for chromedp users, which must not link go-rod (otelguard serves
# rod and chromedp programs alike).
NOROD := chromedpguard chromedp015guard otelguard examples/chromedp
# chromedp015guard builds against every chromedp release from v0.9.5, which
# its go.mod requires, to v0.15: these go.mod files of its own pin two more,
# which its tests run on too (go test -modfile).
CHROMEDP015 := go.chromedp-v0.13.6.mod go.chromedp-v0.15.1.mod
# The root module builds against every rod release from v0.114.1, which its
# go.mod requires so that a program pinning it keeps it, to v0.116.2: this
# go.mod file of its own pins the newest, which its tests run on too.
ROD := go.rod-v0.116.2.mod
# Packages whose exported API api/<package name>.txt records: make lint
# fails when a recorded name is gone or has changed.
API := . tabstate tabtrace chromedpguard chromedp015guard otelguard
# staticcheck at a pinned version, built from the Go module proxy.
STATICCHECK := $(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: test test-more test-all test-root test-soak test-full/chromedpguard $(MODULES:%=test-in/%) $(CHROMEDP015:%=test-chromedp015/%) $(ROD:%=test-rod/%) demo browser lint api bench bench-smoke fuzz release

# browser finds or installs (as root, with apt-get) Chromium and Xvfb, the
# virtual display of the headed tests.
browser:
	@bash scripts/ensure-browser

lint:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt -l lists:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	@for m in $(MODULES); do (cd $$m && echo "go vet in $$m" && $(GO) vet ./...) || exit 1; done
	@for f in $(CHROMEDP015); do (cd chromedp015guard && echo "go vet in chromedp015guard with $$f" && $(GO) vet -modfile=$$f ./...) || exit 1; done
	@for f in $(ROD); do echo "go vet with $$f" && $(GO) vet -modfile=$$f ./... || exit 1; done
	@for m in $(NOROD); do if (cd $$m && $(GO) list -deps ./... | grep -q '^github.com/go-rod/'); then \
		echo "$$m links go-rod: code for chromedp users must not"; exit 1; fi; done
	$(STATICCHECK) ./...
	@for m in $(MODULES); do (cd $$m && echo "staticcheck in $$m" && $(STATICCHECK) ./...) || exit 1; done
	GO=$(GO) $(GO) run ./internal/cmd/apicheck $(API)
	@GO=$(GO) bash scripts/adopt-versions

# adopt-versions checks that adopting the root module, chromedpguard,
# chromedp015guard or otelguard moves none of a program's requirements: a
# program pinning the oldest releases they support keeps every version (a
# second or two with a warm module cache, so make lint runs it too).
.PHONY: adopt-versions
adopt-versions:
	@GO=$(GO) bash scripts/adopt-versions

# api records the exported API of the API packages in api/, after an
# addition or a deliberate break.
api:
	GO=$(GO) $(GO) run ./internal/cmd/apicheck -w $(API)

# make test runs lint and each module's tests side by side, as jobs of one
# make -j: each job's output is shown whole when it ends (-O), every job
# runs to its end (-k), and make test fails when any one failed. The jobs
# start longest first (measured on 2 cores), so that no long one runs alone
# at the end. TESTJOBS bounds how many run at once: every test job drives
# Chromium, and on a 2-core machine three jobs drove the load average to
# 25, where Chrome took over 5 s to load a small page.
TESTJOBS ?= 2
LONGEST := chromedpguard chromedp015guard examples/mcpserver examples/controlserver
TESTS := test-root $(LONGEST:%=test-in/%) test-soak lint $(patsubst %,test-in/%,$(filter-out $(LONGEST),$(MODULES)))

test: browser
	@$(MAKE) --no-print-directory -j$(TESTJOBS) -O -k $(TESTS)

# make test-more runs what is kept out of make test to hold it under five
# minutes on two cores, in full (TABGUARD_TEST_ALL, faultrows.Full): the
# root package again on the newest rod release, with every prompt row 20
# times on one tab where make test runs it twice, and every way of recovering
# a tab 5 times where make test runs it twice; chromedpguard in full: its
# whole fault matrix, of which make test runs one row of each kind of
# fault and every row chromedp answers in its own way (faultrows.Smoke),
# and the rows that repeat an engine rule's browser row with no call of
# their own (faultrows.EngineRow), the engine giving every such row the
# answer the root package's rows hold; chromedp015guard in full on the
# newer chromedp releases it pins; and the slow browser rows of rules the
# engine's own tests hold without a browser (faultrows.SlowRow).
# make test-all is both; CI runs both.
test-more: browser
	@$(MAKE) --no-print-directory -j$(TESTJOBS) -O -k $(ROD:%=test-rod/%) test-full/chromedpguard $(CHROMEDP015:%=test-chromedp015/%)

test-all: test test-more

# test-root runs the root module's tests but the soak.
test-root:
	$(GO) test -race -count=1 -timeout 15m -skip '^TestSoak$$' ./...

# test-soak runs the soak on its own, with -v, so its summary line shows.
test-soak:
	@$(GO) test -race -count=1 -timeout 5m -run '^TestSoak$$' -v . > .soak.log 2>&1; rc=$$?; \
	if [ $$rc -ne 0 ]; then cat .soak.log; else grep -E '^(soak:|ok)' .soak.log; fi; rm -f .soak.log; exit $$rc

# test-in/M runs the tests of the nested module M.
$(MODULES:%=test-in/%): test-in/%:
	cd $* && $(GO) test -race -count=1 -timeout 10m ./...

# test-chromedp015/F runs chromedp015guard's tests in full on the chromedp
# release its go.mod file F pins.
$(CHROMEDP015:%=test-chromedp015/%): test-chromedp015/%:
	cd chromedp015guard && TABGUARD_TEST_ALL=1 $(GO) test -race -count=1 -timeout 5m -modfile=$* ./...

# test-full/chromedpguard runs chromedpguard's tests in full: the whole
# fault matrix, and the rows that repeat an engine rule's browser row.
test-full/chromedpguard:
	cd chromedpguard && TABGUARD_TEST_ALL=1 $(GO) test -race -count=1 -timeout 15m .

# test-rod/F runs the root package's tests but the soak, in full, on the
# rod release its go.mod file F pins: the root package alone, which holds
# the rod adapter, to keep make test's time down.
$(ROD:%=test-rod/%): test-rod/%:
	TABGUARD_TEST_ALL=1 $(GO) test -race -count=1 -timeout 15m -modfile=$* -skip '^TestSoak$$' .

demo: browser
	$(GO) run ./examples/demo

bench: browser
	bash scripts/bench

# bench-smoke runs every benchmark once, the chromedpguard module's too: it
# proves they still work and measures nothing (scripts/bench does).
bench-smoke: browser
	$(GO) test -run='^$$' -bench=. -benchtime=1x -count=1 -timeout 10m ./...
	cd chromedpguard && $(GO) test -run='^$$' -bench=. -benchtime=1x -count=1 -timeout 5m ./...
	cd otelguard && $(GO) test -run='^$$' -bench=. -benchtime=1x -count=1 -timeout 5m ./...

# fuzz runs each fuzz target for FUZZTIME, one after another.
fuzz:
	bash scripts/fuzz $(FUZZTIME)

# release tags every module at VERSION (make release VERSION=v0.9.0) after
# setting the nested modules' requirements to it; it pushes nothing.
release:
	@test -n "$(VERSION)" || { echo "usage: make release VERSION=vX.Y.Z"; exit 1; }
	GO=$(GO) bash scripts/release $(VERSION)
