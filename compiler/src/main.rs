fn main() {
    println!("flowc");
}
