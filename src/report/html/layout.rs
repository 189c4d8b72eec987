//! A layered layout, left to right, for the few dozen boxes of a finding's drawing: each box
//! goes one layer left of its nearest consumer (the finding's node alone in the last layer),
//! boxes in a layer are ordered by where their consumers sit, and each gap between layers is
//! as wide as the widest edge label leaving the layer on its left. Integer pixels, so the same
//! graph gives the same bytes.

/// A box's size and the labels of the edges it sends, as the layout needs them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Sized {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
}

/// Where a box goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct Place {
    /// Left edge.
    pub x: u32,
    /// Top edge.
    pub y: u32,
    /// Its layer.
    pub layer: usize,
}

/// The placed boxes and the drawing's size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Layout {
    /// One per box, in the boxes' order.
    pub places: Vec<Place>,
    /// Where each layer's label gap starts (the right edge of its widest box).
    pub gap_start: Vec<u32>,
    /// Width of the whole drawing.
    pub width: u32,
    /// Height of the whole drawing.
    pub height: u32,
}

/// Margin around the drawing and between boxes of one layer.
const MARGIN: u32 = 12;
/// Vertical room between boxes of one layer (labels sit above edges).
const ROW_GAP: u32 = 30;
/// Room on top of the widest label of a gap, for the arrow's curve.
const GAP_EXTRA: u32 = 36;

/// Lays out `boxes` (box `sink` last) joined by `edges` (`from`, `to`, width of `from`'s label
/// on this edge). Edges that would close a circle (there are none in a provenance chain) only
/// cost layers, bounded by the number of boxes.
pub(super) fn layout(boxes: &[Sized], edges: &[(usize, usize, u32)], sink: usize) -> Layout {
    let n = boxes.len();
    let layer = layers(n, edges, sink);
    let layer_count = layer.iter().copied().max().map_or(1, |m| m + 1);
    let order = order(n, edges, &layer, layer_count);
    let mut column_width = vec![0u32; layer_count];
    let mut label_width = vec![0u32; layer_count];
    for (b, &l) in boxes.iter().zip(&layer) {
        if let Some(w) = column_width.get_mut(l) {
            *w = (*w).max(b.width);
        }
    }
    for &(from, _, width) in edges {
        if let Some(w) = layer.get(from).and_then(|&l| label_width.get_mut(l)) {
            *w = (*w).max(width);
        }
    }
    let mut column_x = Vec::with_capacity(layer_count);
    let mut gap_start = Vec::with_capacity(layer_count);
    let mut x = MARGIN;
    for (w, label) in column_width.iter().zip(&label_width) {
        column_x.push(x);
        gap_start.push(x + w);
        x += w + label + GAP_EXTRA;
    }
    let width = x - GAP_EXTRA + MARGIN;
    // Each layer's stack, centred on the tallest.
    let stack_height = |members: &[usize]| -> u32 {
        let boxes_height: u32 = members
            .iter()
            .filter_map(|&i| boxes.get(i))
            .map(|b| b.height)
            .sum();
        let gaps = u32::try_from(members.len().saturating_sub(1)).unwrap_or(u32::MAX);
        boxes_height + gaps.saturating_mul(ROW_GAP)
    };
    let tallest = order.iter().map(|m| stack_height(m)).max().unwrap_or(0);
    let height = tallest + 2 * MARGIN + ROW_GAP;
    let mut places = vec![Place::default(); n];
    for (l, members) in order.iter().enumerate() {
        let mut y = MARGIN + ROW_GAP / 2 + (tallest - stack_height(members)) / 2;
        for &i in members {
            let (Some(place), Some(b)) = (places.get_mut(i), boxes.get(i)) else {
                continue;
            };
            *place = Place {
                x: column_x.get(l).copied().unwrap_or(MARGIN),
                y,
                layer: l,
            };
            y += b.height + ROW_GAP;
        }
    }
    Layout {
        places,
        gap_start,
        width,
        height,
    }
}

/// Each box's layer: counted back from the sink, one left of its nearest consumer; a box
/// without a path to the sink goes left of everything.
fn layers(n: usize, edges: &[(usize, usize, u32)], sink: usize) -> Vec<usize> {
    // Distance to the sink, relaxed at most n times (a chain of n boxes needs n - 1).
    let mut depth: Vec<Option<usize>> = vec![None; n];
    if let Some(d) = depth.get_mut(sink) {
        *d = Some(0);
    }
    for _ in 0..n {
        let mut changed = false;
        for &(from, to, _) in edges {
            let Some(next) = depth.get(to).copied().flatten().map(|d| d + 1) else {
                continue;
            };
            if let Some(d) = depth.get_mut(from) {
                if d.is_none_or(|d| next < d) && next < n {
                    *d = Some(next);
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    let deepest = depth.iter().flatten().copied().max().unwrap_or(0);
    let unreached = deepest + 1;
    let last = if depth.iter().any(Option::is_none) {
        unreached
    } else {
        deepest
    };
    depth
        .iter()
        .map(|d| last - d.unwrap_or(unreached).min(last))
        .collect()
}

/// The boxes of each layer, top to bottom: the last layer as given, then each layer to the
/// left sorted by the mean position of its consumers (ties by box index).
fn order(
    n: usize,
    edges: &[(usize, usize, u32)],
    layer: &[usize],
    count: usize,
) -> Vec<Vec<usize>> {
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); count];
    for (i, &l) in layer.iter().enumerate().take(n) {
        if let Some(m) = members.get_mut(l) {
            m.push(i);
        }
    }
    let mut rank = vec![0usize; n];
    for l in (0..count).rev() {
        let Some(list) = members.get_mut(l) else {
            continue;
        };
        let key = |i: usize| -> (usize, usize) {
            let consumers: Vec<usize> = edges
                .iter()
                .filter(|e| e.0 == i)
                .filter_map(|e| rank.get(e.1).copied())
                .collect();
            // Twice the mean, so halves stay apart in integers.
            let mean = if consumers.is_empty() {
                usize::MAX
            } else {
                2 * consumers.iter().sum::<usize>() / consumers.len()
            };
            (mean, i)
        };
        list.sort_by_key(|&i| key(i));
        for (position, &i) in list.iter().enumerate() {
            if let Some(r) = rank.get_mut(i) {
                *r = position;
            }
        }
    }
    members
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sized(n: usize) -> Vec<Sized> {
        vec![
            Sized {
                width: 50,
                height: 20
            };
            n
        ]
    }

    #[test]
    fn a_chain_goes_left_to_right_and_the_sink_is_last() {
        // 2 -> 1 -> 0 (the sink), 3 -> 0.
        let edges = [(2, 1, 30), (1, 0, 30), (3, 0, 30)];
        let layout = layout(&sized(4), &edges, 0);
        let layers: Vec<usize> = layout.places.iter().map(|p| p.layer).collect();
        assert_eq!(layers, [2, 1, 0, 1]);
        assert!(layout.places[2].x < layout.places[1].x);
        assert!(layout.places[1].x < layout.places[0].x);
        // Boxes of one layer do not overlap.
        let (a, b) = (layout.places[1], layout.places[3]);
        assert!(a.y + 20 <= b.y || b.y + 20 <= a.y);
    }

    #[test]
    fn a_circle_ends_and_unreached_boxes_go_first() {
        let edges = [(1, 2, 10), (2, 1, 10), (3, 0, 10)];
        let layout = layout(&sized(4), &edges, 0);
        assert_eq!(layout.places[0].layer, 2);
        assert_eq!(layout.places[1].layer, 0);
        assert_eq!(layout.places[3].layer, 1);
    }

    #[test]
    fn gaps_fit_the_widest_label() {
        let layout = layout(&sized(2), &[(1, 0, 200)], 0);
        assert!(layout.places[0].x >= layout.places[1].x + 50 + 200);
    }
}
