//! Every order of a small tie, for the tests that check an expectation over a tie's
//! orders by enumerating them.

/// Every order of `0..n` that ranks higher scores first.
pub(crate) fn orders_of(scores: &[f32]) -> Vec<Vec<usize>> {
    fn permute(
        rest: &mut Vec<usize>,
        done: &mut Vec<usize>,
        scores: &[f32],
        out: &mut Vec<Vec<usize>>,
    ) {
        if rest.is_empty() {
            out.push(done.clone());
            return;
        }
        let best = rest.iter().map(|&i| scores[i]).fold(f32::NEG_INFINITY, f32::max);
        for j in 0..rest.len() {
            if scores[rest[j]] == best {
                let i = rest.remove(j);
                done.push(i);
                permute(rest, done, scores, out);
                done.pop();
                rest.insert(j, i);
            }
        }
    }
    let mut out = Vec::new();
    permute(&mut (0..scores.len()).collect(), &mut Vec::new(), scores, &mut out);
    out
}
