name=$1; expr=$2
rm -rf /tmp/p_$name && mkdir /tmp/p_$name && cp -r 01_serial 02_single_tile 03_left_right_top common datasets Makefile /tmp/p_$name/
sed -i "$expr" /tmp/p_$name/03_left_right_top/grid_tf32x3.cuh
(cd /tmp/p_$name && make -j16 build/03_left_right_top/test_grid > build.log 2>&1 && build/03_left_right_top/test_grid > $OUT/plant_$name.log 2>&1)
echo "planted $name: $(tail -1 $OUT/plant_$name.log)"; grep FAIL $OUT/plant_$name.log | head -4 | cut -c1-220
