int hostonly(int x){return x+1;}
