//! How a diagnostic code is declared: [`declare_codes!`], which turns the one table in `codes.rs`
//! into the [`Code`](super::Code) enum, its severity, SARIF name and explanation, and
//! [`Facts::code`](super::Facts::code); and [`Explanation`], the documentation each entry holds.
//! (clippy's `declare_clippy_lint!` and ruff's code table keep a lint's name, level and docs in
//! one place the same way.)

/// The documentation of one code: what `--explain` prints, SARIF's rule descriptions and the
/// README code table's row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Explanation {
    /// The code as printed: `E1`, `load/decode`.
    pub code: &'static str,
    /// `error`, `warning`, `info` or `file error` (the README's severity column).
    pub severity: &'static str,
    /// No facts produce it any more: kept so that configurations and baselines naming it load.
    pub retired: bool,
    /// One line (SARIF `shortDescription`).
    pub summary: &'static str,
    /// What the code means: the README table's meaning column and SARIF `fullDescription`.
    pub meaning: &'static str,
    /// The heading of [`why`](Self::why): a finding that fails a run says why; a warning on a
    /// model that runs, a retired code and an info say what happens instead.
    pub why_heading: &'static str,
    /// Why the model fails at run time (or, for an info, what is lost).
    pub why: &'static str,
    /// A minimal model in ONNX text syntax (`onnx.parser`), or how the case arises.
    pub example: &'static str,
    /// How to fix it.
    pub fix: &'static str,
    /// The specification it comes from.
    pub spec: &'static str,
}

/// Declares every code from one table: finding codes, then file codes.
///
/// A finding code is written
///
/// ```text
/// /// Doc of the variant.
/// E1 = 0 {
///     severity: Error,                      // a `Severity` variant
///     sarif: "IncompatibleBroadcast",       // the SARIF rule's `name`
///     facts: [BroadcastClash, ForcedValue { constraints_only: false }],
///     summary: "...", meaning: "...", why_heading: ..., why: "...",
///     example: "...", fix: "...", spec: "...",
/// }
/// ```
///
/// `= 0` is the code's place in `Code::ALL`, the order codes were introduced: SARIF rule indices,
/// Python's `CODES` and the order of findings at one node follow it, so an existing code keeps
/// its number and a new one takes the next. The table itself is in the README's order, which
/// `--explain`'s list of known codes follows. `facts` lists the [`Facts`](super::Facts) variants
/// that carry the code, a variant with field values when the code depends on them;
/// `Facts::code` is generated from these lists, so the build refuses a variant no code claims
/// (a non-exhaustive match) or one claimed twice (an unreachable pattern, denied in CI). A code no facts carry is retired. The remaining fields are the
/// [`Explanation`]'s. A file code (`load/...`) is written `"load/io" { summary: ..., ... }`: no
/// variant, severity `file error`.
macro_rules! declare_codes {
    // Whether a `facts` entry names field values (then only some of the variant's facts carry
    // the code).
    (@some) => { false };
    (@some $($field:tt)+) => { true };
    (
        findings {
            $(
                $(#[$doc:meta])*
                $code:ident = $index:literal {
                    severity: $severity:ident,
                    sarif: $sarif:literal,
                    facts: [$($kind:ident $({ $($field:ident: $value:literal),* })?),* $(,)?],
                    $($part:ident: $text:expr),* $(,)?
                }
            )*
        }
        files {
            $(
                $file:literal { $($file_part:ident: $file_text:expr),* $(,)? }
            )*
        }
    ) => {
        /// Stable diagnostic codes. A code never changes meaning (README: "Diagnostic codes");
        /// each is declared once, in `diag/codes.rs`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
        pub enum Code {
            $($(#[$doc])* $code = $index,)*
        }

        impl Code {
            /// Every code, in the order they were introduced (SARIF rule indices follow it).
            pub const ALL: [Code; [$(stringify!($code)),*].len()] =
                in_order([$(Code::$code),*]);

            /// The code as printed.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Code::$code => stringify!($code),)*
                }
            }

            /// The severity findings of this code carry.
            pub fn severity(self) -> Severity {
                match self {
                    $(Code::$code => Severity::$severity,)*
                }
            }

            /// The name of its SARIF rule.
            pub(crate) fn sarif_name(self) -> &'static str {
                match self {
                    $(Code::$code => $sarif,)*
                }
            }

            /// Its documentation.
            pub(crate) const fn explanation(self) -> &'static Explanation {
                match self {
                    $(Code::$code => {
                        const EXPLANATION: Explanation = Explanation {
                            code: stringify!($code),
                            severity: Severity::$severity.as_str(),
                            retired: <[&str]>::is_empty(&[$(stringify!($kind)),*]),
                            $($part: $text,)*
                        };
                        &EXPLANATION
                    })*
                }
            }

            /// The facts variants that carry it, by JSON `kind`-to-be (the variant's name), each
            /// with whether only some of that variant's facts do (field values decide).
            #[cfg(test)]
            pub(super) fn carried_by(self) -> &'static [(&'static str, bool)] {
                match self {
                    $(Code::$code => &[
                        $((stringify!($kind), declare_codes!(@some $($($field)*)?)),)*
                    ],)*
                }
            }
        }

        impl Facts {
            /// The code findings with these facts carry.
            pub fn code(&self) -> Code {
                match self {
                    $($(Facts::$kind { $($($field: $value,)*)? .. } => Code::$code,)*)*
                }
            }
        }

        /// `listed` placed by each code's number: [`Code::ALL`] in the order codes were
        /// introduced. Evaluated when the crate builds: the enum refuses a number given twice,
        /// and a number past the end or a gap fails the build here.
        // Indexing cannot panic at run time: a constant's evaluation failing is a build error.
        #[allow(clippy::indexing_slicing)]
        const fn in_order<const N: usize>(listed: [Code; N]) -> [Code; N] {
            let mut all = listed;
            let mut i = 0;
            while i < N {
                let code = listed[i];
                all[code as usize] = code;
                i += 1;
            }
            let mut i = 0;
            while i < N {
                assert!(all[i] as usize == i, "code numbers are 0, 1, 2, ... without a gap");
                i += 1;
            }
            all
        }

        /// Every code's documentation: the finding codes in the table's (the README's) order,
        /// then the file codes.
        #[cfg(any(test, feature = "cli"))]
        pub(crate) const EXPLAINED: &[Explanation] = &[
            $(*Code::$code.explanation(),)*
            $(Explanation {
                code: $file,
                severity: "file error",
                retired: false,
                $($file_part: $file_text,)*
            },)*
        ];
    };
}

pub(super) use declare_codes;
