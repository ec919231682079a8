// Amounts in words, as the pages write them.

export function bytes(n) {
	const u = ['bytes', 'kB', 'MB', 'GB'];
	let k = 0;
	while (n >= 1024 && k < u.length - 1) {
		n /= 1024;
		k++;
	}
	return (k && n < 10 ? n.toFixed(1) : Math.round(n)) + ' ' + u[k];
}

export function valueWords(unit, v) {
	if (unit === 'nanoseconds')
		return v >= 1e8 ? (v / 1e9).toFixed(1) + ' s' : (v / 1e6).toFixed(1) + ' ms';
	if (unit === 'bytes')
		return bytes(v);
	return String(v);
}

