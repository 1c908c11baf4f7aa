//! Ready-made registries for the model families whose tool-call markup is
//! known to leak into answer text, kept here as data and nowhere else (the
//! binding exports them to JavaScript as `SCAFFOLD_PRESETS`).
//!
//! Each entry traces to its family's chat template or to a server's tool
//! parser, and where one exists to a public report of the leak, cited in
//! the comment beside it (`owner/repo:path` for files, `owner/repo#n` for
//! threads; `docs/preset-sources.md` says more). The pieces inside a call
//! (argument keys, separators) are stripped with the span that holds them.
//!
//! Regular expressions here are written in the syntax JavaScript and the
//! `regex` crate share, because JavaScript users see them as `RegExp`s:
//! `$` for the end of the answer, `\b` for a word boundary.

use super::pattern::{Part, Pattern};
use super::regex::RegexSource;

/// One part of a preset's pattern: literal text or a regular expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PresetPart {
    Literal(&'static str),
    Regex(&'static str),
    /// A regular expression with the `m` flag: `^` matches at every line
    /// start.
    MultiLine(&'static str),
}

impl PresetPart {
    fn to_part(self) -> Part {
        match self {
            PresetPart::Literal(text) => Part::literal(text),
            PresetPart::Regex(source) => Part::Regex(RegexSource::new(source)),
            PresetPart::MultiLine(source) => {
                Part::Regex(RegexSource { multi_line: true, ..RegexSource::new(source) })
            }
        }
    }
}

/// One pattern of a preset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PresetPattern {
    /// From `start` up to and including the first `end` after it.
    Span { start: &'static str, end: &'static str },
    /// The literal on its own.
    Token(&'static str),
    /// A match of the regular expression.
    Regex(&'static str),
    /// A span with a regular expression at one end or both.
    SpanOf { start: PresetPart, end: PresetPart },
    /// The start, optional whitespace, one JSON object or array.
    Json(PresetPart),
    /// A bare JSON tool call.
    JsonCall,
}

impl PresetPattern {
    pub fn to_pattern(self) -> Pattern {
        match self {
            PresetPattern::Span { start, end } => Pattern::span(start, end),
            PresetPattern::Token(literal) => Pattern::token(literal),
            PresetPattern::Regex(source) => Pattern::Regex { regex: RegexSource::new(source) },
            PresetPattern::SpanOf { start, end } => Pattern::span_of(start.to_part(), end.to_part()),
            PresetPattern::Json(start) => Pattern::Json { start: start.to_part() },
            PresetPattern::JsonCall => Pattern::JsonCall { tool_names: None },
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
/// `<|tool_call_start|>…<|tool_call_end|>`. The two standalone tokens are the
/// reference filter's; this preset is exactly the default registry.
pub const LFM2: Preset = Preset {
    name: "lfm2",
    patterns: &[
        // Unchanged default registry: LFM2 wraps each pythonic call list in these two special
        // tokens. Defined in: vllm-project/vllm:vllm/tool_parsers/lfm2_tool_parser.py;
        // sgl-project/sglang:python/sglang/srt/function_call/lfm2_detector.py. Reports:
        // vllm-project/vllm#39243, lmstudio-ai/lmstudio-bug-tracker#1979.
        PresetPattern::Span { start: "<|tool_call_start|>", end: "<|tool_call_end|>" },
        // Unchanged default registry token (the reference filter's). Defined in:
        // src/filter/pattern.rs (TOKENS). Reports: none seen.
        PresetPattern::Token("<|tool_calls|>"),
        // Unchanged default registry token (the reference filter's). Defined in:
        // src/filter/pattern.rs (TOKENS). Reports: none seen.
        PresetPattern::Token("<|tool_call|>"),
    ],
};

/// The Hermes format, `<tool_call>…</tool_call>` around a JSON call, which
/// the chat templates of Qwen 2.5 and 3, Hermes 2 Pro and 3, and GLM's
/// wrapper use; and the stray closer users see once the opener was taken as a
/// special token.
pub const HERMES: Preset = Preset {
    name: "hermes",
    patterns: &[
        // Hermes-style wrapper around a JSON call; an unclosed block (cut off, or the model forgot
        // the closer) is dropped at the end of the stream. Defined in:
        // vllm-project/vllm:vllm/tool_parsers/hermes_tool_parser.py;
        // vllm-project/vllm:examples/tool_chat_template_hermes.jinja. Reports:
        // cubist38/mlx-openai-server#83, ollama/ollama#6390, vllm-project/vllm#5649,
        // ollama/ollama#5813, browser-use/browser-use#158.
        PresetPattern::Span { start: "<tool_call>", end: "</tool_call>" },
        // A closer with no opener: the opener was consumed by a parser or never written, the closer
        // reached the text. Defined in: vllm-project/vllm:vllm/tool_parsers/hermes_tool_parser.py.
        // Reports: AntSeed/antseed#213, ollama/ollama#16686, jundot/omlx#844.
        PresetPattern::Token("</tool_call>"),
    ],
};

/// Zhipu GLM 4.5 and later:
/// `<tool_call>NAME<arg_key>…</arg_key><arg_value>…</arg_value></tool_call>`,
/// often with a doubled closer.
pub const GLM: Preset = Preset {
    name: "glm",
    patterns: &[
        // GLM's block: name, then <arg_key>/<arg_value> pairs, inside the Hermes wrapper. Doubled or
        // stray inner closers and a repeated <tool_call> in place of <arg_key> all sit inside the
        // span. Defined in: vllm-project/vllm:vllm/tool_parsers/glm4_moe_tool_parser.py;
        // vllm-project/vllm:vllm/tool_parsers/glm47_moe_tool_parser.py. Reports:
        // openclaw/openclaw#138198, lmstudio-ai/lmstudio-bug-tracker#1528, waybarrios/vllm-mlx#797,
        // vllm-project/vllm#54971, getsigit/sigit#95.
        PresetPattern::Span { start: "<tool_call>", end: "</tool_call>" },
        // A doubled or orphan </tool_call> left after the span closed at the first one. Defined in:
        // vllm-project/vllm:vllm/tool_parsers/glm4_moe_tool_parser.py. Reports:
        // vllm-project/vllm#54971.
        PresetPattern::Token("</tool_call>"),
    ],
};

/// Qwen3-Coder's XML calls: `<tool_call><function=NAME><parameter=KEY>…</para
/// meter></function></tool_call>`, and the naked `<function=…>` blocks, stray
/// closers and truncated opener that its users report.
pub const QWEN3_CODER: Preset = Preset {
    name: "qwen3-coder",
    patterns: &[
        // The wrapped XML call: <tool_call>, <function=NAME>, <parameter=KEY> blocks, </function>,
        // </tool_call>; also a lone leftover <tool_call> (dropped as an open span). Defined in:
        // vllm-project/vllm:vllm/tool_parsers/qwen3coder_tool_parser.py;
        // vllm-project/vllm:examples/tool_chat_template_qwen3coder.jinja. Reports:
        // vllm-project/vllm#22975, raullenchai/Rapid-MLX#448.
        PresetPattern::Span { start: "<tool_call>", end: "</tool_call>" },
        // The naked block with no opener, the commonest shape; the end takes the stray </tool_call>
        // that follows it (with the whitespace before it), or stops at a </tool_call> when
        // </function> is missing. Defined in:
        // vllm-project/vllm:vllm/tool_parsers/qwen3coder_tool_parser.py. Reports:
        // AntSeed/antseed#213, ollama/ollama#16686, ollama/ollama#17742, jundot/omlx#844.
        PresetPattern::SpanOf {
            start: PresetPart::Literal("<function="),
            end: PresetPart::Regex("</function>(?:\\s*</tool_call>)?|</tool_call>"),
        },
        // Stray closer with nothing before it to end. Defined in:
        // vllm-project/vllm:vllm/tool_parsers/qwen3coder_tool_parser.py. Reports:
        // AntSeed/antseed#213.
        PresetPattern::Token("</tool_call>"),
        // Stray extra closer (Qwen 3.6 adds one), taken only where it ends the answer: mid-answer,
        // a lone </function> is DocBook's or the PHP manual's element as often as a leak, and a
        // user's XML is not cut. Defined in:
        // vllm-project/vllm:vllm/tool_parsers/qwen3coder_tool_parser.py. Reports:
        // QwenLM/Qwen3.8#178.
        PresetPattern::Regex("</function>\\s*$"),
        // Stray closer from an older Qwen wrapper that Qwen 3.6 drifts into. Defined in:
        // QwenLM/Qwen3.8#178 (quotes the template). Reports: QwenLM/Qwen3.8#178,
        // ollama/ollama#16383.
        PresetPattern::Token("</function_invocation>"),
        // Stray parameter closer from a malformed block, taken only where it ends the answer:
        // mid-answer, </parameter> closes elements of Maven plugin descriptors, PHPUnit and
        // JasperReports configs and DocBook. Defined in:
        // vllm-project/vllm:vllm/tool_parsers/qwen3coder_tool_parser.py. Reports:
        // QwenLM/Qwen3-Coder#457.
        PresetPattern::Regex("</parameter>\\s*$"),
        // Streaming residue: the parser held <function back and only that fragment reached the
        // answer's end. Defined in: vllm-project/vllm:vllm/tool_parsers/qwen3coder_tool_parser.py.
        // Reports: raullenchai/Rapid-MLX#448.
        PresetPattern::Regex("<function$"),
    ],
};

/// Meta Llama 3.1 and later: `<|python_tag|>` before a JSON or built-in call,
/// and the `<|eom_id|>` and `<|eot_id|>` tokens leaked as text.
pub const LLAMA3: Preset = Preset {
    name: "llama3",
    patterns: &[
        // The python tag followed by a JSON call ({name, parameters}); only the tag and the object
        // go, so prose after it stays. Defined in:
        // vllm-project/vllm:vllm/tool_parsers/llama_tool_parser.py;
        // vllm-project/vllm:examples/tool_chat_template_llama3.1_json.jinja. Reports:
        // waybarrios/vllm-mlx#580, vllm-project/vllm#11039.
        PresetPattern::Json(PresetPart::Literal("<|python_tag|>")),
        // The tag followed by a built-in call (brave_search.call(...)) or code, ended by the
        // end-of-message or end-of-turn token. Defined in:
        // vllm-project/vllm:vllm/tool_parsers/llama_tool_parser.py. Reports:
        // vllm-project/vllm#11039.
        PresetPattern::SpanOf {
            start: PresetPart::Literal("<|python_tag|>"),
            end: PresetPart::Regex("<\\|eom_id\\|>|<\\|eot_id\\|>"),
        },
        // End-of-message token printed as text (expected after a built-in tool call). Defined in:
        // vllm-project/vllm:examples/tool_chat_template_llama3.1_json.jinja. Reports:
        // FoundationAgents/MetaGPT#1427.
        PresetPattern::Token("<|eom_id|>"),
        // End-of-turn token printed as text. Defined in:
        // vllm-project/vllm:examples/tool_chat_template_llama3.1_json.jinja. Reports:
        // pytorch/torchchat#459, meta-llama/llama3#104.
        PresetPattern::Token("<|eot_id|>"),
    ],
};

/// Meta Llama 4: `<|python_start|>…<|python_end|>`.
pub const LLAMA4: Preset = Preset {
    name: "llama4",
    patterns: &[
        // Llama 4 wraps a call (pythonic list or JSON) in these two special tokens. Defined in:
        // vllm-project/vllm:vllm/tool_parsers/llama4_pythonic_tool_parser.py;
        // vllm-project/vllm:examples/tool_chat_template_llama4_pythonic.jinja. Reports:
        // vllm-project/vllm#16214.
        PresetPattern::Span { start: "<|python_start|>", end: "<|python_end|>" },
        // A closer left alone (vLLM's parser also strips any <|python_end|>). Defined in:
        // vllm-project/vllm:vllm/tool_parsers/llama4_pythonic_tool_parser.py. Reports: none seen.
        PresetPattern::Token("<|python_end|>"),
    ],
};

/// Mistral's tokenizers: `[TOOL_CALLS]` before the calls' JSON, and the newer
/// `[TOOL_CALLS]NAME[ARGS]{…}`, with no closing token; the token alone when
/// no JSON follows.
pub const MISTRAL: Preset = Preset {
    name: "mistral",
    patterns: &[
        // v11+ tokenizers: [TOOL_CALLS]NAME{json}, with [ARGS] between name and JSON when a HF
        // tokenizer renders it (Devstral, Mistral 3). Defined in:
        // vllm-project/vllm:vllm/tool_parsers/mistral_tool_parser.py;
        // ml-explore/mlx-lm:mlx_lm/tool_parsers/mistral.py. Reports: mistralai/mistral-vibe#594,
        // raullenchai/Rapid-MLX#1071.
        PresetPattern::Json(PresetPart::Regex("\\[TOOL_CALLS\\][A-Za-z0-9_.\\-]+(?:\\[ARGS\\])?")),
        // Pre-v11 tokenizers: one marker, then a JSON list of calls. Defined in:
        // vllm-project/vllm:vllm/tool_parsers/mistral_tool_parser.py;
        // vllm-project/vllm:examples/tool_chat_template_mistral3.jinja. Reports:
        // vllm-project/vllm#16190.
        PresetPattern::Json(PresetPart::Literal("[TOOL_CALLS]")),
        // The marker alone when what follows is not a recognisable call. Defined in:
        // vllm-project/vllm:vllm/tool_parsers/mistral_tool_parser.py. Reports:
        // vllm-project/vllm#16190.
        PresetPattern::Token("[TOOL_CALLS]"),
    ],
};

/// DeepSeek V3: `<｜tool▁calls▁begin｜>…<｜tool▁calls▁end｜>`, spelled with full-
/// width bars (U+FF5C) and lower one-eighth blocks (U+2581), and the inner
/// `<｜tool▁call▁begin｜>…<｜tool▁call▁end｜>` on its own.
pub const DEEPSEEK_V3: Preset = Preset {
    name: "deepseek-v3",
    patterns: &[
        // The calls section (V3, R1, V3.1); repeated section openers sit inside it. Defined in:
        // vllm-project/vllm:vllm/tool_parsers/deepseekv3_tool_parser.py;
        // sgl-project/sglang:python/sglang/srt/function_call/deepseekv3_detector.py. Reports:
        // google/adk-python#5654, sgl-project/sglang#5224.
        PresetPattern::Span { start: "<｜tool▁calls▁begin｜>", end: "<｜tool▁calls▁end｜>" },
        // One call without its section (V3 fenced JSON or V3.1 NAME<sep>ARGS layout inside). Defined
        // in: vllm-project/vllm:vllm/tool_parsers/deepseekv3_tool_parser.py;
        // vllm-project/vllm:vllm/tool_parsers/deepseekv31_tool_parser.py. Reports:
        // vllm-project/vllm#23454.
        PresetPattern::Span { start: "<｜tool▁call▁begin｜>", end: "<｜tool▁call▁end｜>" },
        // A section end left after inner calls that had no section begin. Defined in:
        // vllm-project/vllm:vllm/tool_parsers/deepseekv3_tool_parser.py. Reports: none seen.
        PresetPattern::Token("<｜tool▁calls▁end｜>"),
    ],
};

/// DeepSeek V3.2 and V4's DSML: `<｜DSML｜function_calls>` and
/// `<｜DSML｜tool_calls>` blocks, `<｜DSML｜invoke name=…>` and the bare `<invoke
/// name=…>` form, as reported with the bars mangled (ASCII, doubled, U+2016,
/// spaced) and cut off.
pub const DEEPSEEK_DSML: Preset = Preset {
    name: "deepseek-dsml",
    patterns: &[
        // The DSML block: function_calls (V3.2) or tool_calls (V4, which also emits the V3.2 name);
        // the marker may be spelled with U+FF5C, U+2016 or ASCII bars, single or doubled. Defined
        // in: vllm-project/vllm:vllm/tool_parsers/deepseekv32_tool_parser.py;
        // sgl-project/sglang:python/sglang/srt/function_call/deepseekv4_detector.py. Reports:
        // TokenRhythm/opensquilla#985, NousResearch/hermes-agent#119261, sgl-project/sglang#35736,
        // sgl-project/sglang#40236, lsdefine/GenericAgent#804, cline/cline#13348.
        PresetPattern::SpanOf { start: PresetPart::Regex("<[ ]?[｜‖|]{1,2}[ ]?DSML[ ]?[｜‖|]{1,2}[ ]?(?:function|tool)_calls>"), end: PresetPart::Regex("</[ ]?[｜‖|]{1,2}[ ]?DSML[ ]?[｜‖|]{1,2}[ ]?(?:function|tool)_calls>") },
        // An invoke with no surrounding block. Defined in:
        // vllm-project/vllm:vllm/tool_parsers/deepseekv32_tool_parser.py. Reports:
        // sgl-project/sglang#40236, vllm-project/vllm#48931.
        PresetPattern::SpanOf { start: PresetPart::Regex("<[ ]?[｜‖|]{1,2}[ ]?DSML[ ]?[｜‖|]{1,2}[ ]?invoke\\s+name="), end: PresetPart::Regex("</[ ]?[｜‖|]{1,2}[ ]?DSML[ ]?[｜‖|]{1,2}[ ]?invoke>") },
        // The same invoke with the DSML marker missing (DeepSeek web and some gateways), the name
        // its only attribute, so a WS-BPEL <invoke name="…" partnerLink="…"> is left alone.
        // Defined in: vllm-project/vllm:vllm/tool_parsers/deepseekv32_tool_parser.py. Reports:
        // diegosouzapw/OmniRoute#13345.
        PresetPattern::SpanOf {
            start: PresetPart::Regex("<invoke name=\"[^\"\\n]*\">"),
            end: PresetPart::Literal("</invoke>"),
        },
        // DeepSeek web's marker-less envelope, only when an invoke follows it directly (a plain
        // <calls> tag is left alone). Defined in:
        // vllm-project/vllm:vllm/tool_parsers/deepseekv32_tool_parser.py. Reports:
        // diegosouzapw/OmniRoute#13345.
        PresetPattern::SpanOf { start: PresetPart::Regex("<calls>\\s*<invoke name="), end: PresetPart::Literal("</calls>") },
        // Orphan DSML closers (parameter, invoke, block), taken as one run with the whitespace
        // between them. Defined in: vllm-project/vllm:vllm/tool_parsers/deepseekv32_tool_parser.py.
        // Reports: can1357/oh-my-pi#10556, vllm-project/vllm#56184, vllm-project/vllm#48931.
        PresetPattern::Regex("</[ ]?[｜‖|]{1,2}[ ]?DSML[ ]?[｜‖|]{1,2}[ ]?(?:parameter|invoke|function_calls|tool_calls)>(?:\\s*</[ ]?[｜‖|]{1,2}[ ]?DSML[ ]?[｜‖|]{1,2}[ ]?(?:parameter|invoke|function_calls|tool_calls)>)*"),
        // A marker cut short at the very end of the answer (no closing '>'), the residue a parser
        // leaves after taking the call. Defined in:
        // vllm-project/vllm:vllm/tool_parsers/deepseekv32_tool_parser.py. Reports:
        // stdapi-ai/stdapi.ai#182, earendil-works/pi#3712, XNet-NGO/aiope#119.
        PresetPattern::Regex("</?[ ]?[｜‖|]{1,2}[ ]?DSML[ ]?[｜‖|]{1,2}[ ]?[a-z_]*$"),
    ],
};

/// Moonshot Kimi K2: the
/// `<|tool_calls_section_begin|>…<|tool_calls_section_end|>` section, inner
/// `<|tool_call_begin|>…<|tool_call_end|>` calls without it, calls whose
/// opener is missing, and stray section ends.
pub const KIMI_K2: Preset = Preset {
    name: "kimi-k2",
    patterns: &[
        // The section; vLLM also accepts the singular token names. An unterminated section (last
        // token cut) is dropped at the end. Defined in:
        // MoonshotAI/Kimi-K2:docs/tool_call_guidance.md;
        // vllm-project/vllm:vllm/tool_parsers/kimi_k2_tool_parser.py. Reports:
        // anomalyco/opencode#8851, vybestack/llxprt-code#749.
        PresetPattern::SpanOf {
            start: PresetPart::Regex("<\\|tool_calls?_section_begin\\|>"),
            end: PresetPart::Regex("<\\|tool_calls?_section_end\\|>"),
        },
        // One call without its section. Defined in: MoonshotAI/Kimi-K2:docs/tool_call_guidance.md;
        // vllm-project/vllm:vllm/tool_parsers/kimi_k2_tool_parser.py. Reports:
        // vllm-project/vllm#31207.
        PresetPattern::SpanOf {
            start: PresetPart::Literal("<|tool_call_begin|>"),
            end: PresetPart::Regex("<\\|tool_call_end\\|>|<\\|tool_calls?_section_end\\|>"),
        },
        // A call whose begin token was lost: it starts at the ID (NAME:INDEX, with or without
        // functions.) right before the argument token. A bare NAME:INDEX only at the start of a
        // line, as reported (anywhere, it would begin at every word of an answer and cost every
        // clean answer a candidate per unit); with functions. anywhere. Defined in:
        // vllm-project/vllm:vllm/tool_parsers/kimi_k2_tool_parser.py. Reports:
        // typeclaw/typeclaw#344.
        PresetPattern::SpanOf {
            start: PresetPart::MultiLine(
                "^(?:functions\\.)?[A-Za-z0-9_\\-]+:\\d+\\s*<\\|tool_call_argument_begin\\|>\
                 |functions\\.[A-Za-z0-9_\\-]+:\\d+\\s*<\\|tool_call_argument_begin\\|>",
            ),
            end: PresetPart::Regex("<\\|tool_call_end\\|>|<\\|tool_calls?_section_end\\|>"),
        },
        // A section end with no section open. Defined in:
        // vllm-project/vllm:vllm/tool_parsers/kimi_k2_tool_parser.py. Reports:
        // typeclaw/typeclaw#344.
        PresetPattern::Regex("<\\|tool_calls?_section_end\\|>"),
    ],
};

/// Google Gemma 4: `<|tool_call>…<tool_call|>`.
pub const GEMMA4: Preset = Preset {
    name: "gemma4",
    patterns: &[
        // Gemma 4's call token pair; the body's syntax (braces, parentheses, <|"|> quotes, JSON)
        // does not matter. Defined in: vllm-project/vllm:vllm/tool_parsers/gemma4_tool_parser.py;
        // vllm-project/vllm:examples/tool_chat_template_gemma4.jinja. Reports: jundot/omlx#581,
        // jundot/omlx#593, NousResearch/hermes-agent#7457, osaurus-ai/osaurus#1505.
        PresetPattern::Span { start: "<|tool_call>", end: "<tool_call|>" },
    ],
};

/// MiniMax M2 and later: `<minimax:tool_call>…</minimax:tool_call>`, and the
/// dialects its users report (M3's `]<]minimax[>[` prefixes,
/// `[TOOL_CALL]…[/TOOL_CALL]`, M1's `<tool_calls>`).
pub const MINIMAX: Preset = Preset {
    name: "minimax",
    patterns: &[
        // M2 / M2.x block of <invoke name=...> calls. Defined in:
        // vllm-project/vllm:vllm/tool_parsers/minimax_m2_tool_parser.py;
        // sgl-project/sglang:python/sglang/srt/function_call/minimax_m2.py. Reports:
        // MiniMax-AI/MiniMax-M2.5#10, earendil-works/pi#368.
        PresetPattern::Span { start: "<minimax:tool_call>", end: "</minimax:tool_call>" },
        // M3: every structural tag carries the ]<]minimax[>[ namespace token. The span starts at the
        // prefixed wrapper only, because the same token also prefixes the thinking tags. Defined in:
        // vllm-project/vllm:vllm/tool_parsers/minimax_m3_tool_parser.py. Reports:
        // MiniMax-AI/MiniMax-M3#31, lmstudio-ai/lmstudio-bug-tracker#2224.
        PresetPattern::Span { start: "]<]minimax[>[<tool_call>", end: "]<]minimax[>[</tool_call>" },
        // An M3 invoke whose wrapper opener is missing. Defined in:
        // vllm-project/vllm:vllm/tool_parsers/minimax_m3_tool_parser.py. Reports: github/app#2128.
        PresetPattern::Span { start: "]<]minimax[>[<invoke ", end: "]<]minimax[>[</invoke>" },
        // An M3 wrapper closer with no opener. Defined in:
        // vllm-project/vllm:vllm/tool_parsers/minimax_m3_tool_parser.py. Reports: github/app#2128.
        PresetPattern::Token("]<]minimax[>[</tool_call>"),
        // The bracket dialect MiniMax M2 / M2.7 writes through some runtimes ({tool => ..., args =>
        // ...} or JSON inside). Defined in: none. Reports: NousResearch/hermes-agent#35935,
        // lmstudio-ai/lmstudio-bug-tracker#1177.
        PresetPattern::Span { start: "[TOOL_CALL]", end: "[/TOOL_CALL]" },
        // The M1 form, which M2 emits when served with the M1 template. Defined in:
        // vllm-project/vllm:vllm/tool_parsers/minimax_tool_parser.py;
        // vllm-project/vllm:examples/tool_chat_template_minimax_m1.jinja. Reports:
        // MiniMax-AI/MiniMax-M2#14.
        PresetPattern::Span { start: "<tool_calls>", end: "</tool_calls>" },
    ],
};

/// Anthropic-style XML as other models imitate it:
/// `<function_calls>…</function_calls>` and `<invoke name=…>…</invoke>`, with
/// or without the `antml:` prefix, and the corrupted opener line seen in
/// reports.
pub const ANTHROPIC_XML: Preset = Preset {
    name: "anthropic-xml",
    patterns: &[
        // The wrapper, with or without the antml: namespace. Defined in:
        // vybestack/llxprt-code:project-plans/multi-provider/24-implement-tool-formatter-xml.md.
        // Reports: openclaw/openclaw#97750, openclaw/openclaw#41221.
        PresetPattern::SpanOf {
            start: PresetPart::Regex("<(?:antml:)?function_calls>"),
            end: PresetPart::Regex("</(?:antml:)?function_calls>"),
        },
        // Opus 4.8's corrupted opener: a stray word alone on the line where the wrapper belongs,
        // then a bare invoke. Only the words seen in reports are listed. Defined in:
        // leolilley/ryeos:ryeos/bundles/standard/ryeos_std/.ai/tools/rye/agent/threads/internal/text_tool_parser.py.
        // Reports: anthropics/claude-code#74518, anthropics/claude-code#77061,
        // NousResearch/hermes-agent#35706, anthropics/claude-code#64314,
        // anthropics/claude-code#64700, anthropics/claude-code#69529, anthropics/claude-code#75326.
        PresetPattern::SpanOf {
            start: PresetPart::Regex("\\b(?:court|count|call)\\n<(?:antml:)?invoke name=\"[^\"\\n]*\">"),
            end: PresetPart::Regex("</(?:antml:)?invoke>"),
        },
        // A bare invoke with no wrapper at all: the name is its only attribute, as every report
        // shows it, so a WS-BPEL <invoke name="…" partnerLink="…"> is left alone. Defined in:
        // leolilley/ryeos:ryeos/bundles/standard/ryeos_std/.ai/tools/rye/agent/threads/internal/text_tool_parser.py.
        // Reports: anthropics/claude-code#80463, anthropics/claude-code#72063.
        PresetPattern::SpanOf {
            start: PresetPart::Regex("<(?:antml:)?invoke name=\"[^\"\\n]*\">"),
            end: PresetPart::Regex("</(?:antml:)?invoke>"),
        },
        // A wrapper closer whose opener was corrupted into a word. Defined in:
        // vybestack/llxprt-code:project-plans/multi-provider/24-implement-tool-formatter-xml.md.
        // Reports: anthropics/claude-code#72063.
        PresetPattern::Regex("</(?:antml:)?function_calls>"),
    ],
};

/// OpenAI gpt-oss's harmony format: `<|channel|>commentary to=functions.NAME
/// <|constrain|>json<|message|>{…}<|call|>`, and the same header with its
/// special tokens already removed, followed by its JSON.
pub const HARMONY: Preset = Preset {
    name: "harmony",
    patterns: &[
        // A gpt-oss call header and its JSON arguments, either with the special tokens (recipient
        // before or after the channel) or with them removed, which glues json to the arguments and
        // may glue assistant to commentary. A non-ASCII run where <|constrain|> belongs is
        // tolerated. A header that begins with a word begins at a word boundary, so that prose
        // does not start a candidate at every a, c and t. Defined in:
        // sgl-project/sglang:python/sglang/srt/function_call/gpt_oss_detector.py;
        // openai/harmony:docs/format.md; vllm-project/vllm:vllm/tool_parsers/openai_tool_parser.py.
        // Reports: raullenchai/Rapid-MLX#480, raullenchai/Rapid-MLX#444,
        // lmstudio-ai/lmstudio-bug-tracker#873, livekit/agents-js#1632.
        PresetPattern::Json(PresetPart::Regex("(?:<\\|start\\|>(?:assistant[^\\S\\n]*)?(?:<\\|channel\\|>)?(?:commentary[^\\S\\n]*)?|\\bassistant[^\\S\\n]*(?:<\\|channel\\|>)?(?:commentary[^\\S\\n]*)?|<\\|channel\\|>(?:commentary[^\\S\\n]*)?|\\bcommentary[^\\S\\n]*|\\b)to=functions\\.[A-Za-z0-9_.\\-]+[^\\S\\n]*(?:<\\|channel\\|>)?(?:commentary)?[^\\S\\n]*(?:<\\|constrain\\|>|[^\\x00-\\x7F]+)?[^\\S\\n]*(?:json)?(?:<\\|message\\|>)?")),
        // The token form when the arguments are not JSON (python or free-form tools): header through
        // <|call|> (or <|end|>). Defined in:
        // sgl-project/sglang:python/sglang/srt/function_call/gpt_oss_detector.py. Reports: none
        // seen.
        PresetPattern::SpanOf { start: PresetPart::Regex("(?:<\\|start\\|>assistant[^\\S\\n]*to=|<\\|channel\\|>commentary[^\\S\\n]*to=)"), end: PresetPart::Regex("<\\|call\\|>|<\\|end\\|>") },
        // The call terminator left after the JSON was stripped. Defined in:
        // sgl-project/sglang:python/sglang/srt/function_call/gpt_oss_detector.py. Reports: none
        // seen.
        PresetPattern::Token("<|call|>"),
    ],
};

/// IBM Granite: `<|tool_call|>` before a JSON list of calls (Granite 3.0),
/// and the `<tool_call>` string form of Granite 3.1.
pub const GRANITE: Preset = Preset {
    name: "granite",
    patterns: &[
        // Granite 3.0: the <|tool_call|> token, then a JSON list of {name, arguments}. Defined in:
        // vllm-project/vllm:vllm/tool_parsers/granite_tool_parser.py;
        // vllm-project/vllm:examples/tool_chat_template_granite.jinja. Reports:
        // vllm-project/vllm#11039.
        PresetPattern::Json(PresetPart::Literal("<|tool_call|>")),
        // The token when no JSON follows. Defined in:
        // vllm-project/vllm:vllm/tool_parsers/granite_tool_parser.py. Reports: none seen.
        PresetPattern::Token("<|tool_call|>"),
        // Granite 3.1+ writes the string <tool_call> before the list with no closer (dropped at the
        // end as an open span); Granite 4 closes it, Hermes-style. Defined in:
        // vllm-project/vllm:vllm/tool_parsers/granite_tool_parser.py;
        // vllm-project/vllm:vllm/tool_parsers/granite4_tool_parser.py. Reports:
        // gpustack/llama-box#17, vllm-project/vllm#11307.
        PresetPattern::Span { start: "<tool_call>", end: "</tool_call>" },
        // Granite 4 closer without an opener. Defined in:
        // vllm-project/vllm:vllm/tool_parsers/granite4_tool_parser.py. Reports: none seen.
        PresetPattern::Token("</tool_call>"),
    ],
};

/// A bare JSON tool call standing as the whole answer or at the very start
/// of a line (not indented), for any model.
pub const JSON_CALL: Preset = Preset {
    name: "json-call",
    patterns: &[
        // Bare JSON calls with no wrapper: Llama 3.x {name, parameters}, Qwen {name, arguments},
        // lists, tool_calls objects, OpenAI function objects. Defined in:
        // vllm-project/vllm:vllm/tool_parsers/llama_tool_parser.py;
        // sgl-project/sglang:python/sglang/srt/function_call/json_detector.py. Reports:
        // raullenchai/Rapid-MLX#700, ollama/ollama#11185, NousResearch/hermes-agent#5867,
        // sgomez/ollama-ai-provider#11, mistralai/mistral-common#73, ggml-org/llama.cpp#14697,
        // vllm-project/vllm#11786, vllm-project/vllm#19024, ollama/ollama#13519.
        PresetPattern::JsonCall,
    ],
};

/// Every preset, in the order of the table in `docs/scaffolding-filter.md`
/// (and of `SCAFFOLD_PRESETS`).
pub const PRESETS: [Preset; 16] = [
    LFM2,
    HERMES,
    GLM,
    QWEN3_CODER,
    LLAMA3,
    LLAMA4,
    MISTRAL,
    DEEPSEEK_V3,
    DEEPSEEK_DSML,
    KIMI_K2,
    GEMMA4,
    MINIMAX,
    ANTHROPIC_XML,
    HARMONY,
    GRANITE,
    JSON_CALL,
];

/// The markers a model's tokenizer reserves for its tool calls, spelled
/// out: `<|…|>`, `<｜…｜>`, `[TOOL_CALLS]`, MiniMax's `]<]minimax[>[`.
/// No answer writes them on purpose, so stripping them costs a clean answer
/// nothing (a document that quotes them raw is the one exception).
const SPECIAL_STARTS: [&str; 4] = ["<|", "<｜", "[TOOL_CALLS]", "]<]minimax[>["];
/// The same starts as regular-expression sources begin them.
const SPECIAL_REGEX_STARTS: [&str; 4] = ["<\\|", "<[ ]?[｜", "\\[TOOL_CALLS\\]", "<｜"];

impl PresetPart {
    fn starts_with_special_token(self) -> bool {
        match self {
            PresetPart::Literal(text) => SPECIAL_STARTS.iter().any(|start| text.starts_with(start)),
            PresetPart::Regex(source) | PresetPart::MultiLine(source) => {
                SPECIAL_REGEX_STARTS.iter().any(|start| source.starts_with(start))
            }
        }
    }
}

impl PresetPattern {
    /// Whether every match begins with a special token.
    pub fn starts_with_special_token(self) -> bool {
        match self {
            PresetPattern::Span { start, .. } | PresetPattern::Token(start) => {
                PresetPart::Literal(start).starts_with_special_token()
            }
            PresetPattern::Regex(source) => PresetPart::Regex(source).starts_with_special_token(),
            PresetPattern::SpanOf { start, .. } | PresetPattern::Json(start) => {
                start.starts_with_special_token()
            }
            PresetPattern::JsonCall => false,
        }
    }
}

/// Every preset pattern that begins with a special token, in preset order,
/// each once: the markup no answer writes on purpose, from every family
/// (`SCAFFOLD_SPECIAL_TOKENS`). The AI SDK middleware strips it by default.
pub fn special_token_patterns() -> Vec<PresetPattern> {
    let mut patterns: Vec<PresetPattern> = Vec::new();
    for pattern in PRESETS.iter().flat_map(|preset| preset.patterns) {
        if pattern.starts_with_special_token() && !patterns.contains(pattern) {
            patterns.push(*pattern);
        }
    }
    patterns
}

/// The preset with this name.
pub fn preset(name: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|preset| preset.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_tokens_come_from_every_family_that_has_them() {
        let patterns = special_token_patterns();
        let starts: Vec<String> = patterns
            .iter()
            .map(|pattern| match *pattern {
                PresetPattern::Span { start, .. } | PresetPattern::Token(start) => start.to_owned(),
                PresetPattern::Regex(source) => source.to_owned(),
                PresetPattern::SpanOf {
                    start: PresetPart::Literal(s) | PresetPart::Regex(s) | PresetPart::MultiLine(s),
                    ..
                }
                | PresetPattern::Json(
                    PresetPart::Literal(s) | PresetPart::Regex(s) | PresetPart::MultiLine(s),
                ) => s.to_owned(),
                PresetPattern::JsonCall => String::new(),
            })
            .collect();
        for expected in [
            "<|tool_call_start|>",
            "<|python_tag|>",
            "<|python_start|>",
            "[TOOL_CALLS]",
            "<｜tool▁calls▁begin｜>",
            "<|tool_call>",
            "<|tool_call|>",
        ] {
            assert!(starts.iter().any(|start| start == expected), "{expected} in {starts:?}");
        }
        // Tags a document writes are not special tokens.
        assert!(
            starts.iter().all(|start| !start.starts_with("<tool_call>") && !start.starts_with("<function")),
            "{starts:?}"
        );
        assert!(!patterns.contains(&PresetPattern::JsonCall));
    }
}
