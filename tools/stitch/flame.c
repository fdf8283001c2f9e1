/*
 * A flame graph as one SVG file with its own script: no external
 * resources, so it opens from disk in any browser. Each frame is a <g>
 * carrying its position in samples (data-x, data-w) and depth (data-d);
 * the script rescales them on click (zoom) and shows name and share on
 * hover. "Search" (or Ctrl-F) asks for a regular expression, paints the
 * frames whose names match and says which share of all samples they cover
 * ("Matched: 12.34%", a frame inside another match counted once), as
 * flamegraph.pl does. The server-side layout is the unzoomed view, so the
 * graph also shows where scripts do not run.
 */
#include <inttypes.h>
#include <string.h>

#include "tree.h"

#define WIDTH   1200
#define PAD     10
#define ROW     16
#define TOP     40
#define BOTTOM  30

/* After "var W=<WIDTH>,PAD=<PAD>;" (written from the macros above). */
static const char script[] =
	"var FW=W-2*PAD;\n"
	"function num(e,a){return +e.getAttribute(a);}\n"
	"function fit(e,w){var n=e.getAttribute('data-n'),c=Math.floor((w-6)/7);\n"
	"  return c<3?'':n.length<=c?n:n.substr(0,c-2)+'..';}\n"
	"function place(e,x,w){var r=e.querySelector('rect'),t=e.querySelector('text');\n"
	"  r.setAttribute('x',x);r.setAttribute('width',Math.max(w-0.5,0));\n"
	"  t.setAttribute('x',x+3);t.textContent=fit(e,w);}\n"
	"function all(){return document.querySelectorAll('#frames g');}\n"
	"function zoom(g){var x0=num(g,'data-x'),w0=num(g,'data-w'),d0=num(g,'data-d');\n"
	"  all().forEach(function(e){var x=num(e,'data-x'),w=num(e,'data-w'),d=num(e,'data-d');\n"
	"    var inside=d>=d0&&x>=x0&&x+w<=x0+w0,under=d<d0&&x<=x0&&x+w>=x0+w0;\n"
	"    e.style.display=inside||under?'':'none';\n"
	"    if(inside)place(e,PAD+(x-x0)/w0*FW,w/w0*FW);else if(under)place(e,PAD,FW);});\n"
	"  document.getElementById('unzoom').style.display=d0>0?'':'none';}\n"
	"function unzoom(){zoom(document.querySelector('#frames g[data-d=\"0\"]'));}\n"
	"function frame(ev){var e=ev.target;while(e&&e.tagName!=='g')e=e.parentNode;\n"
	"  return e&&e.getAttribute('data-n')!==null?e:null;}\n"
	"function paint(e,on){var r=e.querySelector('rect');\n"
	"  if(!r.hasAttribute('data-f'))r.setAttribute('data-f',r.getAttribute('fill'));\n"
	"  r.setAttribute('fill',on?'rgb(230,0,230)':r.getAttribute('data-f'));}\n"
	"function search(term){var re=null,hit=[],all_w=0,sum=0,end=-1;\n"
	"  if(term)try{re=new RegExp(term);}catch(x){re=null;}\n"
	"  all().forEach(function(e){var on=!!re&&re.test(e.getAttribute('data-n'));paint(e,on);\n"
	"    if(num(e,'data-d')===0)all_w=num(e,'data-w');\n"
	"    if(on)hit.push([num(e,'data-x'),num(e,'data-w')]);});\n"
	"  hit.sort(function(a,b){return a[0]-b[0]||b[1]-a[1];});\n"
	"  hit.forEach(function(h){if(h[0]>=end){sum+=h[1];end=h[0]+h[1];}});\n"
	"  var m=document.getElementById('matched');\n"
	"  m.textContent=re?'Matched: '+(all_w?100*sum/all_w:0).toFixed(2)+'%':' ';\n"
	"  document.getElementById('search').textContent=re?'Reset search':'Search';\n"
	"  return re?sum:-1;}\n"
	"function ask(){var s=document.getElementById('search');\n"
	"  if(s.textContent!=='Search'){search(null);return;}\n"
	"  var t=prompt('Search frames (regular expression)','');if(t)search(t);}\n"
	"function init(){var f=document.getElementById('frames'),det=document.getElementById('details');\n"
	"  f.addEventListener('click',function(ev){var g=frame(ev);if(g)zoom(g);});\n"
	"  f.addEventListener('mouseover',function(ev){var g=frame(ev);\n"
	"    if(g)det.textContent=g.querySelector('title').textContent;});\n"
	"  f.addEventListener('mouseout',function(){det.textContent=' ';});\n"
	"  window.addEventListener('keydown',function(ev){\n"
	"    if(ev.ctrlKey&&ev.key==='f'){ev.preventDefault();ask();}});}\n";

static void escaped(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

static unsigned depth_of(const struct node *n)
{
	unsigned d = 0;
	for (size_t i = 0; i < n->nkids; i++) {
		unsigned k = depth_of(n->kids[i]) + 1;
		d = k > d ? k : d;
	}
	return d;
}

/* Warm colours for user code, cool ones for the kernel, grey for the rest. */
static void colour(const struct node *n, int depth, char *buf, size_t size)
{
	unsigned h = 2166136261u;
	for (const char *s = n->name; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	unsigned v = h % 55;
	if (depth < 2 || n->name[0] == '[')
		snprintf(buf, size, "rgb(%u,%u,%u)", 170 + v / 2, 170 + v / 2, 180 + v / 2);
	else if (n->kernel)
		snprintf(buf, size, "rgb(%u,%u,%u)", 80 + v, 150 + v, 220);
	else
		snprintf(buf, size, "rgb(%u,%u,%u)", 225 + v / 2, 90 + 2 * v, 40 + v / 2);
}

static void frame(FILE *f, const struct node *n, uint64_t x, int depth,
		  uint64_t total, unsigned height)
{
	char label[512], fill[32];
	double scale = (double)(WIDTH - 2 * PAD) / (double)total;
	double px = PAD + (double)x * scale, pw = (double)n->total * scale;
	double y = height - BOTTOM - (depth + 1) * ROW;
	node_label(n, label, sizeof label);
	colour(n, depth, fill, sizeof fill);

	fprintf(f, "<g data-x=\"%" PRIu64 "\" data-w=\"%" PRIu64 "\" data-d=\"%d\" data-n=\"",
		x, n->total, depth);
	escaped(f, label);
	fputs("\"><title>", f);
	escaped(f, label);
	fprintf(f, " (%" PRIu64 " samples, %.2f%%)</title>", n->total,
		100.0 * (double)n->total / (double)total);
	fprintf(f, "<rect x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"%d\" fill=\"%s\" rx=\"2\"/>",
		px, y, pw > 0.5 ? pw - 0.5 : 0, ROW - 1, fill);
	fprintf(f, "<text x=\"%.1f\" y=\"%.0f\">", px + 3, y + ROW - 4);
	int fits = (int)((pw - 6) / 7);
	if (fits >= 3) {
		if ((int)strlen(label) > fits)
			strcpy(label + fits - 2, "..");
		escaped(f, label);
	}
	fputs("</text></g>\n", f);

	for (size_t i = 0; i < n->nkids; i++) {
		frame(f, n->kids[i], x, depth + 1, total, height);
		x += n->kids[i]->total;
	}
}

void write_flame(FILE *f, const struct run *r)
{
	struct node *root = tree_build(r);
	unsigned height = TOP + BOTTOM + (depth_of(root) + 1) * ROW;
	fprintf(f, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%u\" viewBox=\"0 0 %d %u\" "
		"xmlns=\"http://www.w3.org/2000/svg\" onload=\"init()\">\n",
		WIDTH, height, WIDTH, height);
	fputs("<style>text{font-family:Verdana,sans-serif;font-size:12px;fill:#000}"
	      "#frames g{cursor:pointer}#frames g:hover rect{stroke:#000;stroke-width:0.5}"
	      "#unzoom,#search{cursor:pointer}</style>\n<script><![CDATA[\n", f);
	fprintf(f, "var W=%d,PAD=%d;\n", WIDTH, PAD);
	fputs(script, f);
	fputs("]]></script>\n", f);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%u\" fill=\"#f4f4ee\"/>\n",
		WIDTH, height);
	fprintf(f, "<text x=\"%d\" y=\"24\" text-anchor=\"middle\" style=\"font-size:17px\">"
		"Stitch profile: %" PRIu64 " samples", WIDTH / 2, root->total);
	if (idle_left_out(r))
		fprintf(f, " (%" PRIu64 " idle left out)", idle_left_out(r));
	fputs("</text>\n", f);
	fprintf(f, "<text id=\"unzoom\" x=\"%d\" y=\"24\" style=\"display:none\" "
		"onclick=\"unzoom()\">Reset zoom</text>\n", PAD);
	fprintf(f, "<text id=\"search\" x=\"%d\" y=\"24\" text-anchor=\"end\" "
		"onclick=\"ask()\">Search</text>\n", WIDTH - PAD);
	fprintf(f, "<text id=\"details\" x=\"%d\" y=\"%u\"> </text>\n", PAD, height - 10);
	fprintf(f, "<text id=\"matched\" x=\"%d\" y=\"%u\" text-anchor=\"end\"> </text>\n",
		WIDTH - PAD, height - 10);
	fputs("<g id=\"frames\">\n", f);
	if (root->total)
		frame(f, root, 0, 0, root->total, height);
	fputs("</g>\n</svg>\n", f);
	tree_free(root);
}
