// llama.cpp's next-token probabilities for llama_cpp/model.gguf (make_llama_cpp_fixture.py says
// how to run it). Writes <folder>/probabilities.json: {"prompts": [[ids]], "probabilities": [[p]]}.
import {getLlama} from "node-llama-cpp";
import {writeFileSync} from "node:fs";

const folder = process.argv[2];
const prompts = [[257, 72, 101, 108], [257, 72, 101, 108, 108, 111, 256, 104], [72, 101, 108, 108, 111, 256, 104, 101, 114, 101, 46, 10]];
const llama = await getLlama({gpu: false, build: "never"});
const model = await llama.loadModel({modelPath: `${folder}/model.gguf`});
const probabilities = [];
for (const prompt of prompts) {
    const context = await model.createContext({contextSize: 64, threads: 1});
    const sequence = context.getSequence();
    const next = await sequence.evaluateWithMetadata(prompt, {probabilities: true}, {temperature: 0}).next();
    const row = [];
    for (let id = 0; id < 258; ++id) row.push(next.value.probabilities.get(id) ?? 0);
    probabilities.push(row);
    await context.dispose();
}
writeFileSync(`${folder}/probabilities.json`, JSON.stringify({prompts, probabilities}) + "\n");
process.exit(0);
