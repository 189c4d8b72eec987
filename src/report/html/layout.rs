//! A layered layout, top to bottom, for the few dozen boxes of a finding's drawing: each box
//! goes above all its consumers, at its longest path to the finding's node (alone in the last
//! layer), so that a chain reads downwards however its branches join; boxes in a layer are
//! ordered by where their consumers sit, and each box's slot is wide enough for the label of
//! the value it sends. Integer pixels, so the same graph gives the same bytes.

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
    /// Its layer (0 at the top).
    pub layer: usize,
}

/// The placed boxes and the drawing's size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Layout {
    /// One per box, in the boxes' order.
    pub places: Vec<Place>,
    /// Width of the whole drawing.
    pub width: u32,
    /// Height of the whole drawing.
    pub height: u32,
}

/// Margin around the drawing.
const MARGIN: u32 = 12;
/// Room between boxes of one layer.
const COLUMN_GAP: u32 = 24;
/// Room under each layer for the edges' labels and curves.
pub(super) const ROW_GAP: u32 = 46;
/// Where a label starts, right of its edge's start at the box's left.
pub(super) const LABEL_OFFSET: u32 = 20;

/// Lays out `boxes` (box `sink` at the bottom) joined by `edges` (`from`, `to`, width of the
/// label `from` writes on this edge), top to bottom. Each box's slot is as wide as the box or
/// its label, whichever is wider; each layer is centred on the widest. Edges that would close a
/// circle (there are none in a provenance chain) only cost layers, bounded by the box count.
pub(super) fn layout(boxes: &[Sized], edges: &[(usize, usize, u32)], sink: usize) -> Layout {
    let n = boxes.len();
    let layer = layers(n, edges, sink);
    let layer_count = layer.iter().copied().max().map_or(1, |m| m + 1);
    let order = order(n, edges, &layer, layer_count);
    let slot = |i: usize| -> u32 {
        let label = edges
            .iter()
            .filter(|e| e.0 == i)
            .map(|e| e.2 + LABEL_OFFSET)
            .max()
            .unwrap_or(0);
        boxes.get(i).map_or(0, |b| b.width).max(label)
    };
    let row_width = |members: &[usize]| -> u32 {
        let slots: u32 = members.iter().map(|&i| slot(i)).sum();
        let gaps = u32::try_from(members.len().saturating_sub(1)).unwrap_or(u32::MAX);
        slots.saturating_add(gaps.saturating_mul(COLUMN_GAP))
    };
    let widest = order.iter().map(|m| row_width(m)).max().unwrap_or(0);
    let mut places = vec![Place::default(); n];
    let mut y = MARGIN;
    for (l, members) in order.iter().enumerate() {
        let mut x = MARGIN + (widest - row_width(members)) / 2;
        let mut tallest = 0;
        for &i in members {
            let (Some(place), Some(b)) = (places.get_mut(i), boxes.get(i)) else {
                continue;
            };
            *place = Place { x, y, layer: l };
            x += slot(i) + COLUMN_GAP;
            tallest = tallest.max(b.height);
        }
        y += tallest + ROW_GAP;
    }
    Layout {
        places,
        width: widest + 2 * MARGIN,
        height: y - ROW_GAP + MARGIN,
    }
}

/// Each box's layer: counted back from the sink by its longest path there; a box without a
/// path to the sink goes left of everything.
fn layers(n: usize, edges: &[(usize, usize, u32)], sink: usize) -> Vec<usize> {
    // Longest distance to the sink, relaxed at most n times (a chain of n boxes needs n - 1);
    // capped below n, so that a circle (none in a provenance chain) ends.
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
                if d.is_none_or(|d| next > d) && next < n {
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
        assert!(layout.places[2].y < layout.places[1].y);
        assert!(layout.places[1].y < layout.places[0].y);
        // Boxes of one layer do not overlap.
        let (a, b) = (layout.places[1], layout.places[3]);
        assert!(a.x + 50 <= b.x || b.x + 50 <= a.x);
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
    fn slots_fit_their_labels() {
        // Two producers of one sink: the first's label is wider than its box.
        let layout = layout(&sized(3), &[(1, 0, 200), (2, 0, 10)], 0);
        let (a, b) = (layout.places[1], layout.places[2]);
        assert_eq!(a.y, b.y);
        assert!(b.x >= a.x + 200 + LABEL_OFFSET, "{a:?} {b:?}");
        assert!(layout.width >= 200 + LABEL_OFFSET + 50);
    }
}
