// SPDX-License-Identifier: BSL-1.0
// Writes tests/text/tokenizer_reference.hpp: texts and the ids js-tiktoken (a port of tiktoken)
// gives them with GPT-2's encoding, called as the book calls tiktoken:
// encode(text, allowed_special={"<|endoftext|>"}). The tests run without node.
//
//   cd tests/reference/node && npm ci && cd ../../.. && node tests/reference/gen_tokenizer_reference.mjs
//
// JavaScript's \s is not tiktoken's: the Rust regex crate tiktoken uses reads \s as Unicode's
// White_Space (which has U+0085 and not U+FEFF), JavaScript as WhiteSpace + LineTerminator (U+FEFF,
// not U+0085). The ids are computed with the pattern's \s and \S spelled out as White_Space, so
// they are tiktoken's; every text without U+0085 or U+FEFF is also checked to give the same ids
// with js-tiktoken's own pattern.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const require = createRequire(join(here, "node", "package.json"));
const { Tiktoken } = require("js-tiktoken/lite");
const gpt2 = require("js-tiktoken/ranks/gpt2");
const ranks = gpt2.default ?? gpt2;

const whiteSpace = "\\t-\\r \\x85\\xA0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000";
const tiktokenPattern = ranks.pat_str.replaceAll("[^\\s", `[^${whiteSpace}`)
  .replaceAll("\\s+(?!\\S)", `[${whiteSpace}]+(?![^${whiteSpace}])`)
  .replaceAll("|\\s+", `|[${whiteSpace}]+`);
if (tiktokenPattern.includes("\\s") || tiktokenPattern.includes("\\S")) throw new Error(tiktokenPattern);
const stock = new Tiktoken(ranks);
const exact = new Tiktoken({ ...ranks, pat_str: tiktokenPattern });
const special = ["<|endoftext|>"];
const encode = (text) => {
  const ids = exact.encode(text, special);
  if (!/[\u0085\uFEFF]/.test(text)) {
    const other = stock.encode(text, special);
    if (other.join() !== ids.join()) throw new Error(`patterns disagree on ${JSON.stringify(text)}`);
  }
  return ids;
};

// Hand-written texts: every branch of the pattern and scripts of many kinds.
const fixed = [
  ["book_hello", "Hello, I am"],
  ["book_chapter2", "Hello, do you like tea? <|endoftext|> In the sunlit terraces of someunknownPlace."],
  ["book_akwirw", "Akwirw ier"],
  ["empty", ""],
  ["single_space", " "],
  ["single_letter", "a"],
  ["contractions_lower", "it's don't we're they've I'm we'll he'd"],
  ["contractions_upper", "IT'S DON'T WE'RE THEY'VE I'M WE'LL HE'D 'S 'T 'RE 'VE 'M 'LL 'D"],
  ["contractions_mixed", "'s't're've'm'll'd 'sx 'tt 'red 'Ll 'lL ''s '''"],
  ["contraction_at_end", "rock'n'roll' '"],
  ["apostrophe_curly", "it’s don’t ‘quoted’"],
  ["digits", "0 1 12 123 1234 12345 123456789 3.14159 1,000,000 0x1F 2024-06-01"],
  ["digits_unicode", "٠١٢٣٤٥ ०१२३ ½ ¾ Ⅻ ⅷ ① ²³"],
  ["spaces_runs", "a  b   c    d     e      f"],
  ["spaces_trailing", "trailing spaces   "],
  ["spaces_leading", "   leading spaces"],
  ["tabs", "\tone\t\ttwo\t \tthree \t"],
  ["newlines", "line1\nline2\n\nline3\n\n\nline4\n"],
  ["crlf", "windows\r\nline\r\n\r\nends\r\n"],
  ["cr_only", "old\rmac\r\rlines"],
  ["vertical_tab_form_feed", "a\u000bb\u000cc \u000b\u000c d"],
  ["nbsp", "non\u00a0breaking\u00a0\u00a0space \u00a0x\u00a0"],
  ["ideographic_space", "全角\u3000スペース\u3000\u3000です \u3000"],
  ["unicode_spaces", "en\u2002em\u2003thin\u2009hair\u200anarrow\u202fmath\u205fogham\u1680line\u2028para\u2029end"],
  ["nel", "next\u0085line \u0085\u0085x"],
  ["bom", "\ufeffbom at start, zero\ufeffwidth \ufeff"],
  ["whitespace_only", " \t\n \r\n  \u00a0 \u3000  "],
  ["whitespace_before_punct", "word  ,  .  !  ?"],
  ["punctuation", "Hello!!! What??? (parens) [brackets] {braces} <angle> \"quotes\" --- ... ;:@#$%^&*_=+|\\/~`"],
  ["latin_accents", "Café naïve résumé façade über Straße Ångström Øresund ĳ œuvre Łódź Dvořák"],
  ["latin_decomposed", "Cafe\u0301 nai\u0308ve re\u0301sume\u0301 n\u0303 a\u030a"],
  ["greek", "Γειά σου Κόσμε· Ἀθῆναι, ὁ λόγος. αβγδεζηθικλμνξοπρστυφχψω"],
  ["cyrillic", "Привет, мир! Съешь же ещё этих мягких французских булок, да выпей чаю. Ёжик"],
  ["chinese", "你好，世界！我们正在测试分词器。汉字没有空格分隔，所以整段会成为一个预分词。"],
  ["japanese", "こんにちは世界。カタカナとひらがなと漢字、そして「かぎ括弧」ーー長音。"],
  ["korean", "안녕하세요 세계! 한국어 텍스트를 토큰화합니다."],
  ["arabic", "مرحبا بالعالم! هذا اختبارٌ للترميز، مع تشكيلٍ وأرقام ١٢٣."],
  ["hebrew", "שָׁלוֹם עוֹלָם, זֶה מִבְחָן"],
  ["devanagari", "नमस्ते दुनिया। यह एक परीक्षण है, क्षत्रिय ज्ञान।"],
  ["thai", "สวัสดีชาวโลก ภาษาไทยไม่มีช่องว่างระหว่างคำ"],
  ["tamil_bengali", "வணக்கம் உலகம் — নমস্কার বিশ্ব"],
  ["emoji", "I ❤️ 🍕 and 🐍! 😀😃😄 👍"],
  ["emoji_zwj", "👨‍👩‍👧‍👦 family, 🏳️‍🌈 flag, 👩‍💻 coder, 🧑🏽‍🚀 astronaut"],
  ["emoji_skin_tones", "👋🏻👋🏼👋🏽👋🏾👋🏿 ✌🏿 🤝🏽"],
  ["emoji_flags_keycaps", "🇫🇷🇯🇵🇺🇸 #️⃣ 1️⃣ 🔟"],
  ["combining_marks", "Z̤͔ͧ̑̓ä͖̭̈̇lͮ̒ͫǧ̗͚̚o̙̔ͮ̇͐̇ t̢e͍x̧t ḁ̶̧"],
  ["symbols_math", "∀x∈ℝ: x² ≥ 0 ⇒ √(x²) = |x|; ∑ᵢ aᵢ ≈ ∫ f(t) dt → ∞ ≠ ∅"],
  ["currency", "$100 €50 £30 ¥1000 ₹250 ₿0.5 ¢"],
  ["code_cpp", "template <class T>\nconstexpr T square(T x) noexcept {\n    return x * x; // comment\n}\n"],
  ["code_python", "def f(x):\n\tif x > 0:\n\t\treturn [i**2 for i in range(x)]\n    return None  # mixed indent\n"],
  ["code_json", "{\"key\": [1, 2.5, -3e10, true, null], \"nested\": {\"a\": \"b\\n\"}}"],
  ["code_shell", "for f in *.txt; do echo \"$f\" | tr 'a-z' 'A-Z' >> out.log 2>&1; done"],
  ["url_email", "See https://example.com/path?q=1&r=two#frag or mail me@example.org."],
  ["markdown", "# Title\n\n* item one\n* **bold** _italic_ `code`\n\n| a | b |\n|---|---|\n"],
  ["eot_alone", "<|endoftext|>"],
  ["eot_twice", "<|endoftext|><|endoftext|>"],
  ["eot_start", "<|endoftext|>Hello"],
  ["eot_end", "Hello<|endoftext|>"],
  ["eot_spaces", "a <|endoftext|> b  <|endoftext|>  c"],
  ["eot_in_word", "pre<|endoftext|>post and 12<|endoftext|>34"],
  ["eot_newlines", "end of doc.\n\n<|endoftext|>\n\nStart of next"],
  ["eot_partial", "<|endoftext <|endoftext| <|endof <|end |endoftext|> endoftext|> <| |>"],
  ["eot_case", "<|EndOfText|> <|ENDOFTEXT|> < |endoftext|>"],
  ["eot_nested", "<|<|endoftext|>|> <<|endoftext|>>"],
  ["long_word", "Pneumonoultramicroscopicsilicovolcanoconiosis antidisestablishmentarianism"],
  ["repeated_letters", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"],
  ["long_space_run", " ".repeat(300) + "x" + " ".repeat(100)],
  ["long_dash_run", "-".repeat(150) + "\n" + "=".repeat(97)],
  ["long_digits", "3141592653589793238462643383279502884197169399375105820974944592307816406286"],
  ["control_chars", "nul\u0000bel\u0007esc\u001b[0mdel\u007f \u001c\u001d\u001e\u001f"],
  ["private_use_and_rare", "\ue000\uf8ff \u{10FFFD} \u{1D11E}\u{1D54F} 𝕏𝔸"],
  ["mixed_scripts", "English, Français, Ελληνικά, Русский, 中文, 日本語, 한국어, العربية, हिन्दी."],
  ["letters_digits_mixed", "abc123def456 1st 2nd 3rd 4th H2O CO2 mp3 x86_64"],
];

// Random texts from pieces of every kind, with a fixed seed.
const pieces = [
  "a", "Z", "word", "The", " the", "é", "ß", "Ω", "ж", "中", "語", "ㅎ", "ب", "क", "्", "ि", "\u0301", "\u0308",
  "0", "7", "42", "٣", "½", "Ⅳ", "'", "'s", "'S", "'ll", "'LL", "'re", "'d", "'", "’", ".", ",", "!", "?", "-", "_",
  "(", ")", "\"", "#", "@", "…", "—", "«", "»", "€", "😀", "👍🏽", "👨‍👩‍👧", "\u200d", "\ufe0f", "🇯🇵",
  " ", " ", " ", "  ", "\t", "\n", "\n\n", "\r\n", "\u00a0", "\u3000", "\u2009", "\u0085", "\ufeff",
  "<|endoftext|>", "<|endoftext", "<|", "|>", "endoftext", "\u0000", "\u007f",
];
let seed = 0x5eed1234;
const random = () => {  // mulberry32
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const randomCases = [];
for (let k = 0; k < 400; ++k) {
  const n = 1 + Math.floor(random() * 40);
  let text = "";
  for (let i = 0; i < n; ++i) text += pieces[Math.floor(random() * pieces.length)];
  randomCases.push([`random_${k}`, text]);
}

const verdict = readFileSync(join(root, "tests", "text", "data", "the-verdict.txt"), "utf8");
const cases = [...fixed, ...randomCases, ["the_verdict", verdict]];

// A C++ string literal of the UTF-8 bytes: printable ASCII as is, the rest as octal escapes.
const cppString = (text) => {
  const bytes = new TextEncoder().encode(text);
  let out = "\"";
  let column = 0;
  for (const b of bytes) {
    const c = String.fromCharCode(b);
    const piece = b >= 0x20 && b < 0x7f && c !== "\\" && c !== "\"" && c !== "?" ? c : "\\" + b.toString(8).padStart(3, "0");
    out += piece;
    column += piece.length;
    if (column > 100) {
      out += "\"\n    \"";
      column = 0;
    }
  }
  return { literal: out + "\"", size: bytes.length };
};

let total = 0;
let header = `// SPDX-License-Identifier: BSL-1.0
// Generated by tests/reference/gen_tokenizer_reference.mjs with js-tiktoken ${JSON.parse(readFileSync(join(here, "node", "node_modules", "js-tiktoken", "package.json"), "utf8")).version}
// (GPT-2's encoding, \\s as tiktoken's White_Space, encode(text, allowed_special={"<|endoftext|>"}));
// do not edit. ${cases.length} texts.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

namespace tokenizer_reference {

// A text and the ids tiktoken gives it.
struct tokenizer_case {
  std::string_view name;
  std::string_view text;
  std::span<const int> ids;
};

`;
const entries = [];
cases.forEach(([name, text], k) => {
  const ids = encode(text);
  total += new TextEncoder().encode(text).length;
  const { literal, size } = cppString(text);
  header += `inline constexpr int ids_${k}[] = {${ids.length ? ids.join(", ") : "-1"}};\n`;
  entries.push(`    {"${name}", std::string_view(${literal}, ${size}), std::span<const int>(ids_${k}, ${ids.length})},`);
});
header += `\n// Every text, ${total} bytes in all.\ninline constexpr tokenizer_case cases[] = {\n${entries.join("\n")}\n};\n\n}  // namespace tokenizer_reference\n`;
writeFileSync(join(root, "tests", "text", "tokenizer_reference.hpp"), header);
console.log(`${cases.length} texts, ${total} bytes`);
