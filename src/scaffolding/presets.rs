//! Ready-made registries for the model families whose tool-call markup is
//! known to leak into answer text, kept here as data and nowhere else (the
//! binding exports them to JavaScript as `SCAFFOLD_PRESETS`).
//!
//! Each preset lists the literals of its family's chat template or tokenizer
//! configuration that surround a tool call. Only literals that mark the
//! call as a whole are listed: the pieces inside a call (argument keys,
//! separators) are stripped with the span that contains them.

use super::registry::{Pattern, SPAN_END, SPAN_START, TOKENS};

/// One pattern of a preset, as literal text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PresetPattern {
    /// From `start` up to and including the first `end` after it.
    Span { start: &'static str, end: &'static str },
    /// The literal on its own.
    Token(&'static str),
}

impl PresetPattern {
    pub fn to_pattern(self) -> Pattern {
        match self {
            PresetPattern::Span { start, end } => Pattern::span(start, end),
            PresetPattern::Token(literal) => Pattern::token(literal),
        }
    }
}

/// A named registry.
#[derive(Clone, Copy, Debug)]
pub struct Preset {
    /// The key in `SCAFFOLD_PRESETS`.
    pub name: &'static str,
    pub patterns: &'static [PresetPattern],
}

impl Preset {
    pub fn to_patterns(&self) -> Vec<Pattern> {
        self.patterns.iter().map(|pattern| pattern.to_pattern()).collect()
    }
}

/// Liquid AI's LFM2: its chat template wraps each call in
/// `<|tool_call_start|>…<|tool_call_end|>`. The two standalone tokens are
/// the reference filter's; this preset is exactly the default registry.
pub const LFM2: Preset = Preset {
    name: "lfm2",
    patterns: &[
        PresetPattern::Span { start: SPAN_START, end: SPAN_END },
        PresetPattern::Token(TOKENS[0]),
        PresetPattern::Token(TOKENS[1]),
    ],
};

/// The Hermes tool-call format, `<tool_call>…</tool_call>`, which the chat
/// templates of Qwen 2.5 and Qwen 3, GLM 4.5 and IBM Granite 4 adopted.
pub const HERMES: Preset =
    Preset { name: "hermes", patterns: &[PresetPattern::Span { start: "<tool_call>", end: "</tool_call>" }] };

/// Meta's Llama 3.1 and later: a built-in tool call starts with the
/// `<|python_tag|>` special token and the message ends with `<|eom_id|>`
/// (end of message, a tool result expected), as the model card's prompt
/// format describes.
pub const LLAMA3: Preset = Preset {
    name: "llama3",
    patterns: &[PresetPattern::Span { start: "<|python_tag|>", end: "<|eom_id|>" }],
};

/// Mistral's tokenizers (v3 and later): the `[TOOL_CALLS]` control token
/// precedes the calls' JSON, with no closing token, so only the token
/// itself can be stripped.
pub const MISTRAL: Preset = Preset { name: "mistral", patterns: &[PresetPattern::Token("[TOOL_CALLS]")] };

/// DeepSeek V3's chat template: the calls sit between
/// `<｜tool▁calls▁begin｜>` and `<｜tool▁calls▁end｜>`, spelled with
/// full-width vertical bars (U+FF5C) and lower one-eighth blocks (U+2581),
/// not ASCII.
pub const DEEPSEEK_V3: Preset = Preset {
    name: "deepseek-v3",
    patterns: &[PresetPattern::Span {
        start: "<\u{FF5C}tool\u{2581}calls\u{2581}begin\u{FF5C}>",
        end: "<\u{FF5C}tool\u{2581}calls\u{2581}end\u{FF5C}>",
    }],
};

/// Moonshot's Kimi K2: its tokenizer's special tokens put the calls in a
/// section, `<|tool_calls_section_begin|>…<|tool_calls_section_end|>`.
pub const KIMI_K2: Preset = Preset {
    name: "kimi-k2",
    patterns: &[PresetPattern::Span {
        start: "<|tool_calls_section_begin|>",
        end: "<|tool_calls_section_end|>",
    }],
};

/// Meta's Llama 4: a call sits between the `<|python_start|>` and
/// `<|python_end|>` special tokens (vLLM's `llama4_pythonic` tool parser
/// and its tests; a JSON call leaked this way in vllm-project/vllm#16214).
pub const LLAMA4: Preset = Preset {
    name: "llama4",
    patterns: &[PresetPattern::Span { start: "<|python_start|>", end: "<|python_end|>" }],
};

/// Google's Gemma 4: `<|tool_call>call:NAME{…}<tool_call|>`, the bar inside
/// the opening token's left end and the closing token's right end (vLLM's
/// `gemma4` tool parser, `TOOL_CALL_START` and `TOOL_CALL_END`). Reported
/// leaking with every Gemma 4 size in jundot/omlx#581 and #593, and through
/// hosted APIs in NousResearch/hermes-agent#7457 and osaurus-ai/osaurus#1505.
pub const GEMMA4: Preset = Preset {
    name: "gemma4",
    patterns: &[PresetPattern::Span { start: "<|tool_call>", end: "<tool_call|>" }],
};

/// MiniMax M2 and M2.x: `<minimax:tool_call>` around one or more
/// `<invoke name=…>` blocks, closed by `</minimax:tool_call>` (the
/// `minimax_m2` tool parsers of vLLM and SGLang). Reported leaking as plain
/// text in MiniMax-AI/MiniMax-M2.5#10 and earendil-works/pi#368.
pub const MINIMAX: Preset = Preset {
    name: "minimax",
    patterns: &[PresetPattern::Span { start: "<minimax:tool_call>", end: "</minimax:tool_call>" }],
};

/// Zhipu's GLM 4.5 and later: a call is `<tool_call>NAME`, then
/// `<arg_key>…</arg_key><arg_value>…</arg_value>` pairs, then
/// `</tool_call>` (vLLM's `glm4_moe` tool parser). The span is Hermes's;
/// the pairs inside it go with it. Reported leaking whole in
/// openclaw/openclaw#138198 and lmstudio-ai/lmstudio-bug-tracker#1528, and
/// cut off inside the call in waybarrios/vllm-mlx#797.
pub const GLM: Preset =
    Preset { name: "glm", patterns: &[PresetPattern::Span { start: "<tool_call>", end: "</tool_call>" }] };

/// DeepSeek V3.2 and V4's DSML: the calls sit in a block,
/// `<｜DSML｜function_calls>…</｜DSML｜function_calls>` for V3.2 (vLLM's
/// `deepseekv32` tool parser) and `<｜DSML｜tool_calls>…</｜DSML｜tool_calls>`
/// for V4 (SGLang's `deepseekv4` detector), with `<｜DSML｜invoke …>` and
/// `<｜DSML｜parameter …>` tags inside; the bars are full-width (U+FF5C).
/// Reported leaking whole in TokenRhythm/opensquilla#985,
/// NousResearch/hermes-agent#119261 and sgl-project/sglang#35736.
pub const DEEPSEEK_DSML: Preset = Preset {
    name: "deepseek-dsml",
    patterns: &[
        PresetPattern::Span {
            start: "<\u{FF5C}DSML\u{FF5C}function_calls>",
            end: "</\u{FF5C}DSML\u{FF5C}function_calls>",
        },
        PresetPattern::Span {
            start: "<\u{FF5C}DSML\u{FF5C}tool_calls>",
            end: "</\u{FF5C}DSML\u{FF5C}tool_calls>",
        },
    ],
};

/// Qwen3-Coder's XML calls: `<tool_call>`, then `<function=NAME>`,
/// `<parameter=KEY>` blocks and `</function>`, then `</tool_call>` (the
/// `qwen3_coder` parsers of vLLM and SGLang, whose fallback also reads a
/// `<function=…>` block with no wrapper). Both spans are listed because
/// users see both: the wrapped block in vllm-project/vllm#22975, the naked
/// one in AntSeed/antseed#213, ollama/ollama#16686 and #17742.
pub const QWEN3_CODER: Preset = Preset {
    name: "qwen3-coder",
    patterns: &[
        PresetPattern::Span { start: "<tool_call>", end: "</tool_call>" },
        PresetPattern::Span { start: "<function=", end: "</function>" },
    ],
};

/// Every preset, in the order `SCAFFOLD_PRESETS` lists them.
pub const PRESETS: [Preset; 12] = [
    LFM2,
    HERMES,
    LLAMA3,
    MISTRAL,
    DEEPSEEK_V3,
    KIMI_K2,
    LLAMA4,
    GEMMA4,
    MINIMAX,
    GLM,
    DEEPSEEK_DSML,
    QWEN3_CODER,
];

/// The preset with this name.
pub fn preset(name: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|preset| preset.name == name)
}
