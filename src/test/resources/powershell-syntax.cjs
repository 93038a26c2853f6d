// Syntax check of PowerShell scripts with tree-sitter's PowerShell grammar (WebAssembly), for PowerShellScriptsTest:
// node powershell-syntax.cjs FILE... prints one line per syntax error and "N files, M errors"; exit 1 on any error.
// Run with node --liftoff-only: optimising the 1 MB grammar would cost a minute of CPU for nothing.
const { Parser, Language } = require('web-tree-sitter');
const fs = require('fs');

(async () => {
  await Parser.init();
  const language = await Language.load(require.resolve('tree-sitter-powershell/tree-sitter-powershell.wasm'));
  const parser = new Parser();
  parser.setLanguage(language);
  let errors = 0;
  for (const file of process.argv.slice(2)) {
    const tree = parser.parse(fs.readFileSync(file, 'utf8'));
    const cursor = tree.walk();
    let more = true;
    while (more) {
      const node = cursor.currentNode;
      if (node.type === 'ERROR' || node.isMissing) {
        errors++;
        const where = `${file}:${node.startPosition.row + 1}:${node.startPosition.column + 1}`;
        console.log(`${where}: ${node.isMissing ? 'missing ' + node.type : 'syntax error'}: `
            + node.text.slice(0, 80).replace(/\s+/g, ' '));
      }
      if (cursor.gotoFirstChild()) continue;
      while (!cursor.gotoNextSibling()) {
        if (!cursor.gotoParent()) { more = false; break; }
      }
    }
  }
  console.log(`${process.argv.length - 2} files, ${errors} errors`);
  process.exit(errors ? 1 : 0);
})().catch(e => { console.error(e); process.exit(2); });
