// The examples' one piece of layout: prose wrapped to a width, indented.
export function wrap(text, indent = '    ', width = 78) {
  const lines = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && (indent + line + ' ' + word).length > width) {
      lines.push(indent + line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(indent + line);
  return lines.join('\n');
}
