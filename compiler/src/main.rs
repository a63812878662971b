fn main() {
    for p in std::env::args().skip(1) {
        let text = std::fs::read_to_string(&p).unwrap();
        let (ast, diags) = flowc::syntax::parse(flowc::source::FileId(0), &text);
        println!("{p}: items={:?} diags={:#?}", ast.map(|a| a.items.len()), diags);
    }
}
