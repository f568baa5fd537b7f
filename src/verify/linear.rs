//! Multinomial logistic regression (softmax over 3 classes), trained in Rust.
//!
//! Features are standardised with the training set's mean and deviation; the loss is the
//! class-weighted cross-entropy (each class weighed n / (3 · n_class), so the rare classes count
//! as much as the common one, which is what macro-F1 rewards) plus an L2 penalty on the weights;
//! full-batch Adam minimises it for a fixed number of epochs. Deterministic: no sampling.

/// A trained model.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Linear {
    /// Feature means (for standardising).
    pub mean: Vec<f32>,
    /// Feature deviations (for standardising).
    pub scale: Vec<f32>,
    /// Weights, class by class (3 × features).
    pub weights: Vec<f32>,
    /// Biases.
    pub bias: [f32; 3],
}

/// Training settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinearConfig {
    /// Passes over the data.
    pub epochs: usize,
    /// Adam's step size.
    pub learning_rate: f32,
    /// L2 penalty.
    pub l2: f32,
}

impl Default for LinearConfig {
    fn default() -> Self {
        LinearConfig { epochs: 150, learning_rate: 0.01, l2: 3.0 }
    }
}

fn softmax(z: [f32; 3]) -> [f32; 3] {
    let m = z.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let e = z.map(|x| (x - m).exp());
    let s: f32 = e.iter().sum();
    e.map(|x| x / s)
}

impl Linear {
    /// Trains on rows `x` (all the same length) with classes `y` (0..3).
    pub fn train(x: &[Vec<f32>], y: &[usize], config: &LinearConfig) -> Linear {
        let (n, d) = (x.len(), x.first().map_or(0, Vec::len));
        let mut mean = vec![0f32; d];
        let mut scale = vec![0f32; d];
        for row in x {
            mean.iter_mut().zip(row).for_each(|(m, v)| *m += v / n as f32);
        }
        for row in x {
            scale.iter_mut().zip(row.iter().zip(&mean)).for_each(|(s, (v, m))| *s += (v - m).powi(2) / n as f32);
        }
        scale.iter_mut().for_each(|s| *s = if *s > 1e-12 { s.sqrt() } else { 1.0 });
        let xs: Vec<Vec<f32>> = x.iter().map(|row| row.iter().zip(mean.iter().zip(&scale)).map(|(v, (m, s))| (v - m) / s).collect()).collect();
        let mut counts = [0usize; 3];
        y.iter().for_each(|&c| counts[c] += 1);
        let class_weight = counts.map(|c| if c == 0 { 0.0 } else { n as f32 / (3.0 * c as f32) });
        let mut model = Linear { mean, scale, weights: vec![0.0; 3 * d], bias: [0.0; 3] };
        let (b1, b2, eps) = (0.9f32, 0.999f32, 1e-8f32);
        let mut m = vec![0f32; 3 * d + 3];
        let mut v = vec![0f32; 3 * d + 3];
        for t in 1..=config.epochs {
            let mut grad = vec![0f32; 3 * d + 3];
            for (row, &c) in xs.iter().zip(y) {
                let p = softmax(model.logits_standardised(row));
                let w = class_weight[c] / n as f32;
                for k in 0..3 {
                    let g = w * (p[k] - if k == c { 1.0 } else { 0.0 });
                    grad[k * d..(k + 1) * d].iter_mut().zip(row).for_each(|(gr, xv)| *gr += g * xv);
                    grad[3 * d + k] += g;
                }
            }
            for (g, w) in grad[..3 * d].iter_mut().zip(&model.weights) {
                *g += config.l2 * w;
            }
            let (c1, c2) = (1.0 - b1.powi(t as i32), 1.0 - b2.powi(t as i32));
            for i in 0..3 * d + 3 {
                m[i] = b1 * m[i] + (1.0 - b1) * grad[i];
                v[i] = b2 * v[i] + (1.0 - b2) * grad[i] * grad[i];
                let step = config.learning_rate * (m[i] / c1) / ((v[i] / c2).sqrt() + eps);
                if i < 3 * d {
                    model.weights[i] -= step;
                } else {
                    model.bias[i - 3 * d] -= step;
                }
            }
        }
        model
    }

    fn logits_standardised(&self, row: &[f32]) -> [f32; 3] {
        let d = row.len();
        std::array::from_fn(|k| self.bias[k] + self.weights[k * d..(k + 1) * d].iter().zip(row).map(|(w, x)| w * x).sum::<f32>())
    }

    /// Class probabilities for a raw feature row.
    pub fn predict(&self, row: &[f32]) -> [f32; 3] {
        let standardised: Vec<f32> = row.iter().zip(self.mean.iter().zip(&self.scale)).map(|(v, (m, s))| (v - m) / s).collect();
        softmax(self.logits_standardised(&standardised))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn separable_classes_are_learned() {
        let x: Vec<Vec<f32>> = (0..90).map(|i| vec![(i % 3) as f32 + 0.1 * (i / 3 % 5) as f32, 1.0]).collect();
        let y: Vec<usize> = (0..90).map(|i| i % 3).collect();
        let model = Linear::train(&x, &y, &LinearConfig { epochs: 500, learning_rate: 0.05, l2: 0.0 });
        let correct = x.iter().zip(&y).filter(|(row, &c)| {
            let p = model.predict(row);
            (0..3).max_by(|&a, &b| p[a].total_cmp(&p[b])).unwrap() == c
        });
        assert!(correct.count() >= 80);
    }
}
