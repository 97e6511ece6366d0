package main

import (
	"fmt"
	"sort"
	"time"

	"github.com/gnnlab/gnnlab/gnnlib/cuda"
	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// nnBF16Epochs times full-batch epochs (forward, backward, Adam) of the
// GCN and GATv2 of apiEpochs (hidden activations through nn.ReLUDropout)
// written with gnnlib/nn, in float32 and with the forward pass under
// tensor.Autocast(tensor.BFloat16), as a notebook writes them: the two
// models start from the same parameters and their epochs alternate, so
// that both see the same device state; each variant's peak is that of
// one epoch of its own. It prints each median, the speedup and the ratio
// of the peaks (issue 25's targets: ≥ 1.6x faster, ≤ 0.6x the memory),
// and more variants of bfloat16: with the nnbf16 helper's switches off
// (nnbf16Switches), with tune.AsyncLaunch flipped from its default (bfloat16 and float32), replayed as CUDA graphs
// (cuda.GraphReplay), with tune.DeviceSpin 0 (float32 and bfloat16), and
// with tune.MultiTensorOptim flipped from its default (bfloat16 and
// float32: Adam's step in one launch or one a parameter). The others launch kernel by kernel (cuda.AutoReplay
// off, as in the api part): the automatic choice would flip with the
// variants' alternating times per launch.
func nnBF16Epochs(d *cuda.Device, g *csr, fin, hidden, classes, layers int) {
	defer func(a bool) { cuda.AutoReplay = a }(cuda.AutoReplay)
	cuda.AutoReplay = false
	asyncDefault, spinDefault := tune.AsyncLaunch, tune.DeviceSpin
	multiDefault := tune.MultiTensorOptim
	hg := hostGraph(g)
	x := tensor.Randn(1, g.n, fin).To(d.Backend())
	y := make([]int, g.n)
	for i := range y {
		y[i] = i % classes
	}
	for _, kind := range []string{"gcn", "gatv2"} {
		dims := apiDims(kind, fin, hidden, classes, layers)
		type mode struct {
			dt  tensor.DType
			old bool // -nnepoch-ab's variant: the paths before the nnepoch helper's changes
			off bool // the nnbf16 helper's switches off
			// async: tune.AsyncLaunch flipped from its default (on:
			// launches queued to the device goroutine, not waited for
			// one by one): how much of the epoch is the host's launching.
			async bool
			// replay: bfloat16 replayed as CUDA graphs (cuda.GraphReplay).
			replay bool
			// park: tune.DeviceSpin 0 (the device goroutine and its
			// waiters park at once instead of polling).
			park bool
			// multi: tune.MultiTensorOptim flipped from its default.
			multi bool
		}
		type variant struct {
			name        string
			epoch       func()
			first, last float32
			times       []float64
			host        []float64 // until the last launch was issued, before the loss is read back
			hostLast    float64
			peak        float64
			m           mode
		}
		var vs []*variant
		byMode := map[mode]*variant{}
		modes := []mode{{dt: tensor.Float32}, {dt: tensor.BFloat16},
			{dt: tensor.BFloat16, off: true}, {dt: tensor.BFloat16, async: true}, {dt: tensor.BFloat16, replay: true},
			{dt: tensor.Float32, async: true}, {dt: tensor.Float32, park: true}, {dt: tensor.BFloat16, park: true}}
		if *nnepochAB {
			modes = append(modes, mode{dt: tensor.Float32, old: true}, mode{dt: tensor.BFloat16, old: true})
		}
		modes = append(modes, mode{dt: tensor.Float32, multi: true}, mode{dt: tensor.BFloat16, multi: true})
		for _, m := range modes {
			dt := m.dt
			nn.Seed(7)
			model := newAPIModel(kind, dims)
			model.fused = true
			nn.To(model, d.Backend())
			opt := nn.NewAdam(model.Params(), 0.01, 0)
			v := &variant{name: dt.String(), m: m}
			if m.old {
				v.name += " [old paths]"
			}
			if m.off {
				v.name += " [nnbf16 switches off]"
			}
			if m.async {
				v.name += fmt.Sprintf(" [tune.AsyncLaunch %s]", onOff(!asyncDefault))
			}
			if m.replay {
				v.name += " [cuda.GraphReplay]"
			}
			if m.park {
				v.name += " [tune.DeviceSpin 0]"
			}
			if m.multi {
				v.name += fmt.Sprintf(" [tune.MultiTensorOptim %s]", onOff(!multiDefault))
			}
			v.epoch = func() {
				defer oldPaths(m.old)()
				defer nnbf16Switches(!m.off)()
				defer func(on bool) { tune.AsyncLaunch = on }(tune.AsyncLaunch)
				tune.AsyncLaunch = asyncDefault != m.async
				defer func(s time.Duration) { tune.DeviceSpin = s }(tune.DeviceSpin)
				if m.park {
					tune.DeviceSpin = 0
				}
				defer func(on bool) { tune.MultiTensorOptim = on }(tune.MultiTensorOptim)
				tune.MultiTensorOptim = multiDefault != m.multi
				// Restored after the loss is read back (a wait, which
				// ends the recorded segment).
				defer func(on bool) { cuda.GraphReplay = on }(cuda.GraphReplay)
				cuda.GraphReplay = m.replay
				t0 := time.Now()
				opt.ZeroGrad()
				var loss *tensor.Tensor
				tensor.Autocast(dt, func() { loss = nn.CrossEntropy(model.Forward(hg, x), y, nil) })
				loss.Backward()
				opt.Step()
				v.hostLast = float64(time.Since(t0).Microseconds()) / 1e3
				v.last = loss.Item() // waits for the device
				if v.first == 0 {
					v.first = v.last
				}
			}
			vs = append(vs, v)
			byMode[m] = v
		}
		for _, v := range vs {
			v.epoch()
			v.epoch()
		}
		for range *reps {
			for _, v := range vs {
				t0 := time.Now()
				v.epoch()
				v.times = append(v.times, float64(time.Since(t0).Microseconds())/1e3)
				v.host = append(v.host, v.hostLast)
			}
		}
		for _, v := range vs {
			settle(d)
			v.epoch()
			v.peak = peakGiB(d)
			sort.Float64s(v.times)
			sort.Float64s(v.host)
		}
		med := func(xs []float64) float64 { return xs[len(xs)/2] }
		f32, bf := byMode[mode{dt: tensor.Float32}], byMode[mode{dt: tensor.BFloat16}]
		mf, mb := med(f32.times), med(bf.times)
		for _, v := range vs {
			report("nn-bf16-epoch", g.name, fmt.Sprintf("%s, %d layers, hidden %d, %s", kind, layers, hidden, v.name), med(v.times), v.peak,
				fmt.Sprintf("gnnlib/nn under tensor.Autocast(%s); loss %.3f -> %.3f; host %.3f ms to issue the epoch (median), then waits for the loss", v.name, v.first, v.last, med(v.host)))
		}
		report("nn-bf16-epoch", g.name, fmt.Sprintf("%s bfloat16 vs float32", kind), mb, bf.peak,
			fmt.Sprintf("speedup %.2fx (target >= 1.6x), peak %.2fx of float32 (target <= 0.6x)", mf/mb, bf.peak/f32.peak))
		off, replay := byMode[mode{dt: tensor.BFloat16, off: true}], byMode[mode{dt: tensor.BFloat16, replay: true}]
		async, f32async := byMode[mode{dt: tensor.BFloat16, async: true}], byMode[mode{dt: tensor.Float32, async: true}]
		mo, ma, mr, mfa := med(off.times), med(async.times), med(replay.times), med(f32async.times)
		// With and without tune.AsyncLaunch, whichever is the default.
		bOn, bOff, fOn, fOff := mb, ma, mf, mfa
		if !asyncDefault {
			bOn, bOff, fOn, fOff = ma, mb, mfa, mf
		}
		report("nn-bf16-epoch", g.name, fmt.Sprintf("%s, tune.AsyncLaunch on vs off (default %s)", kind, onOff(asyncDefault)), bOn, async.peak,
			fmt.Sprintf("bfloat16 %.3f -> %.3f ms (%.2fx), float32 %.3f -> %.3f ms (%.2fx); bfloat16 vs float32 off %.2fx, on %.2fx",
				bOff, bOn, bOff/bOn, fOff, fOn, fOff/fOn, fOff/bOff, fOn/bOn))
		report("nn-bf16-epoch", g.name, fmt.Sprintf("%s bfloat16, cuda.GraphReplay on vs off", kind), mr, replay.peak,
			fmt.Sprintf("bfloat16 %.3f -> %.3f ms (%.2fx; %.2fx float32's)", mb, mr, mb/mr, mf/mr))
		report("nn-bf16-epoch", g.name, fmt.Sprintf("%s bfloat16, nnbf16 switches off vs on (%s)", kind, nnbf16SwitchesDoc), mb, bf.peak,
			fmt.Sprintf("bfloat16 %.3f -> %.3f ms (%.2fx); bfloat16 vs float32 off %.2fx, on %.2fx; peak %.3f -> %.3f GiB",
				mo, mb, mo/mb, mf/mo, mf/mb, off.peak, bf.peak))
		f0, b0 := byMode[mode{dt: tensor.Float32, park: true}], byMode[mode{dt: tensor.BFloat16, park: true}]
		m0f, m0b := med(f0.times), med(b0.times)
		report("nn-bf16-epoch", g.name, fmt.Sprintf("%s, tune.DeviceSpin %v vs 0", kind, spinDefault), mb, bf.peak,
			fmt.Sprintf("float32 %.3f -> %.3f ms (%.2fx), host %.3f -> %.3f ms; bfloat16 %.3f -> %.3f ms (%.2fx), host %.3f -> %.3f ms; bfloat16 vs float32 parked %.2fx, polling %.2fx",
				m0f, mf, m0f/mf, med(f0.host), med(f32.host), m0b, mb, m0b/mb, med(b0.host), med(bf.host), m0f/m0b, mf/mb))
		fm, bm := byMode[mode{dt: tensor.Float32, multi: true}], byMode[mode{dt: tensor.BFloat16, multi: true}]
		mfm, mbm := med(fm.times), med(bm.times)
		hf, hb, hfm, hbm := med(f32.host), med(bf.host), med(fm.host), med(bm.host)
		mOn, mOff, fmOn, fmOff, hOn, hOff, hfOn, hfOff := mbm, mb, mfm, mf, hbm, hb, hfm, hf
		if multiDefault {
			mOn, mOff, fmOn, fmOff, hOn, hOff, hfOn, hfOff = mb, mbm, mf, mfm, hb, hbm, hf, hfm
		}
		report("nn-bf16-epoch", g.name, fmt.Sprintf("%s, tune.MultiTensorOptim on vs off (default %s)", kind, onOff(multiDefault)), mOn, bm.peak,
			fmt.Sprintf("bfloat16 %.3f -> %.3f ms (%.2fx), host %.3f -> %.3f ms; float32 %.3f -> %.3f ms (%.2fx), host %.3f -> %.3f ms",
				mOff, mOn, mOff/mOn, hOff, hOn, fmOff, fmOn, fmOff/fmOn, hfOff, hfOn))
		if *nnepochAB {
			f2, b2 := byMode[mode{dt: tensor.Float32, old: true}], byMode[mode{dt: tensor.BFloat16, old: true}]
			m2f, m2b := med(f2.times), med(b2.times)
			report("nn-bf16-epoch", g.name, fmt.Sprintf("%s old paths (%s) vs new", kind, oldPathsDoc), mb, bf.peak,
				fmt.Sprintf("float32 %.3f -> %.3f ms (%.2fx), bfloat16 %.3f -> %.3f ms (%.2fx); bfloat16 vs float32 old %.2fx, new %.2fx; peaks float32 %.3f -> %.3f, bfloat16 %.3f -> %.3f GiB",
					m2f, mf, m2f/mf, m2b, mb, m2b/mb, m2f/m2b, mf/mb, f2.peak, f32.peak, b2.peak, bf.peak))
		}
		if *profile {
			for _, v := range vs {
				if v.m.async || v.m.replay || v.m.multi {
					continue // the profile waits after each op
				}
				profileEpoch(d, g.name, kind+", "+v.name, v.epoch)
			}
		}
		check(d.EmptyCache())
	}
}

// nnbf16SwitchesDoc names the switches nnbf16Switches turns off.
const nnbf16SwitchesDoc = "nn.FuseLayerActivationUnderAutocast, tune.BF16Loss, nn.ActColSumUnderAutocast with tune.BF16ActColSum, tune.BF16Narrow, tune.BF16Concat, tune.BF16SplitF32 with tensor.RoundParamGradsInPlace, tune.BF16Vec8"

// nnbf16Switches leaves the nnbf16 helper's switches (issue 25: the nn
// epochs under Autocast) at their defaults when on, else turns them all
// off, and returns the function that restores them: the GATv2 layer's fused activation under Autocast, the bfloat16
// loss, the activation's gradient with the bias gradient in one
// bfloat16 pass, Narrow and Concat in bfloat16, and the split-K weight
// gradients kept in float32 and rounded where they lie, and the 16-byte
// bias, activation and activation-gradient passes.
func nnbf16Switches(on bool) func() {
	act, loss, cs, cs16 := nn.FuseLayerActivationUnderAutocast, tune.BF16Loss, nn.ActColSumUnderAutocast, tune.BF16ActColSum
	nw, cc, sk, rp, v8 := tune.BF16Narrow, tune.BF16Concat, tune.BF16SplitF32, tensor.RoundParamGradsInPlace, tune.BF16Vec8
	if !on {
		nn.FuseLayerActivationUnderAutocast, tune.BF16Loss, nn.ActColSumUnderAutocast, tune.BF16ActColSum = false, false, false, false
		tune.BF16Narrow, tune.BF16Concat, tune.BF16SplitF32, tensor.RoundParamGradsInPlace, tune.BF16Vec8 = false, false, false, false, false
	}
	return func() {
		nn.FuseLayerActivationUnderAutocast, tune.BF16Loss, nn.ActColSumUnderAutocast, tune.BF16ActColSum = act, loss, cs, cs16
		tune.BF16Narrow, tune.BF16Concat, tune.BF16SplitF32, tensor.RoundParamGradsInPlace, tune.BF16Vec8 = nw, cc, sk, rp, v8
	}
}

// onOff names a switch's state.
func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}
