package minilm

// gemmI8 computes, for rows [0, rows) (a multiple of rowBlock) and output
// panels [p0, p1): c[i][n] = scale[n]·Σ_k a[i][k]·w[n][k] + bias[n].
func gemmI8(c []float32, ldc int, a []float32, lda, rows int, l *linear, p0, p1 int) {
	k := l.in
	if useAsm {
		for r := 0; r < rows; r += rowBlock {
			gemmI8Avx2(&a[r*lda], lda, &l.q[p0*k*panel], k, &c[r*ldc+p0*panel], ldc, &l.scale[p0*panel], &l.bias[p0*panel], p1-p0)
		}
		return
	}
	var acc [rowBlock][panel]float32
	var wf [panel]float32
	for r := 0; r < rows; r += rowBlock {
		for p := p0; p < p1; p++ {
			acc = [rowBlock][panel]float32{}
			w := l.q[p*k*panel : (p+1)*k*panel]
			for kk := range k {
				for j, v := range w[kk*panel : kk*panel+panel] {
					wf[j] = float32(v)
				}
				for i := range rowBlock {
					x := a[(r+i)*lda+kk]
					ai := &acc[i]
					for j := range panel {
						ai[j] += x * wf[j]
					}
				}
			}
			sc, b := l.scale[p*panel:p*panel+panel], l.bias[p*panel:p*panel+panel]
			for i := range rowBlock {
				out := c[(r+i)*ldc+p*panel:][:panel]
				for j := range panel {
					out[j] = acc[i][j]*sc[j] + b[j]
				}
			}
		}
	}
}

// gemmF32 computes c[i][n] = Σ_k a[i][k]·b[n][k] for rows [0, rows) (a
// multiple of rowBlock) and all panels of b, packed [panels][k][16].
func gemmF32(c []float32, ldc int, a []float32, lda, rows int, b []float32, k, panels int) {
	if useAsm {
		for r := 0; r < rows; r += rowBlock {
			gemmF32Avx2(&a[r*lda], lda, &b[0], k, &c[r*ldc], ldc, panels)
		}
		return
	}
	var acc [rowBlock][panel]float32
	for r := 0; r < rows; r += rowBlock {
		for p := range panels {
			acc = [rowBlock][panel]float32{}
			w := b[p*k*panel : (p+1)*k*panel]
			for kk := range k {
				wf := w[kk*panel : kk*panel+panel]
				for i := range rowBlock {
					x := a[(r+i)*lda+kk]
					ai := &acc[i]
					for j := range panel {
						ai[j] += x * wf[j]
					}
				}
			}
			for i := range rowBlock {
				copy(c[(r+i)*ldc+p*panel:][:panel], acc[i][:])
			}
		}
	}
}
