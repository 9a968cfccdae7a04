// gltf_validate.js — the Khronos glTF-Validator (npm gltf-validator) over
// files: one line per file, "<file>\t<error count>\t<JSON pointer>;..." of
// its errors (severity 0). Usage: node gltf_validate.js MODULE_DIR FILE...
const fs = require('fs');
const path = require('path');
const validator = require(path.join(process.argv[2], 'gltf-validator'));

async function validate(file) {
    const report = await validator.validateBytes(new Uint8Array(fs.readFileSync(file)), {
        uri: path.basename(file),
        maxIssues: 10000,
        externalResourceFunction: (uri) => new Promise((resolve, reject) => {
            const where = path.join(path.dirname(file), decodeURIComponent(uri));
            fs.readFile(where, (e, data) => (e ? reject(e.toString()) : resolve(new Uint8Array(data))));
        }),
    });
    const errors = report.issues.messages.filter((m) => m.severity === 0);
    return `${file}\t${report.issues.numErrors}\t${errors.map((m) => m.pointer || '').join(';')}`;
}

(async () => {
    for (const file of process.argv.slice(3)) {
        try {
            console.log(await validate(file));
        } catch (e) {
            console.log(`${file}\tfailed\t${e}`);
        }
    }
})();
